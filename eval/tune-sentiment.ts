// Fits the constants of TUNED_SENTIMENT_MODEL (bees/sentiment-analyzer/analyze.ts)
// on the TUNING halves of the VADER ground-truth sets only, prints them, and
// exits non-zero if analyze.ts holds different values.
//
// Run from the repository root (tap's bundled ts-node loader runs TypeScript
// directly; npx tsx is not installed and Node 20 cannot strip types):
//   TS_NODE_TRANSPILE_ONLY=1 node --import @tapjs/typescript/import eval/tune-sentiment.ts
//
// 1. Blend weight and neutral band: grid search maximising the worst margin,
//    over the four sets, of (F1 - VADER's published F1) and (r - published r);
//    ties go to the higher mean F1.
// 2. Confidence: logistic regression of "label is right" on the calibration
//    features of each polar prediction, every set weighted equally.
// 3. Neutral confidence: how often a neutral prediction is right (gold exactly 0).
import { pathToFileURL } from 'node:url'
import { TUNED_SENTIMENT_MODEL } from '../bees/sentiment-analyzer/analyze.js'
import { blendScore, calibrationFeatures, labelFor, type ConfidenceCalibration, type SentimentModel } from '../bees/sentiment-analyzer/model.js'
import { extractSignals, type SentimentSignals } from '../bees/sentiment-analyzer/signals.js'
import { SENTIMENT_SETS, loadSet, splitHalf, type SentimentSet } from './datasets.js'
import { goldLabel, paperPolarScores, pearson } from './sentiment-metrics.js'

interface TuningItem { rating: number; signals: SentimentSignals }
interface TuningSet { set: SentimentSet; items: TuningItem[] }

const WEIGHT_GRID = Array.from({ length: 101 }, (_, i) => i / 100)
const BAND_GRID = [0, 0.01, 0.02, 0.03, 0.05, 0.1]
// Light ridge penalty: keeps the fit unique when a feature barely varies.
const L2 = 1e-3

export function loadTuningSets (): TuningSet[] {
  return SENTIMENT_SETS.map(set => ({
    set,
    items: splitHalf(set.name, loadSet(set), 'tuning').map(item => ({ rating: item.rating, signals: extractSignals(item.text) }))
  }))
}

function polarFit (sets: readonly TuningSet[], vaderWeight: number, neutralBand: number): { worstMargin: number; meanF1: number } {
  let worstMargin = Infinity
  let meanF1 = 0
  for (const { set, items } of sets) {
    const scores = items.map(item => blendScore(item.signals, vaderWeight))
    const { f1 } = paperPolarScores(items.map((item, i) => ({
      rating: item.rating, label: labelFor(scores[i]!, neutralBand), confidence: 0, score: scores[i]!
    })))
    const r = pearson(scores, items.map(item => item.rating))
    worstMargin = Math.min(worstMargin, f1 - set.vader.f1, r - set.vader.r)
    meanF1 += f1 / sets.length
  }
  return { worstMargin, meanF1 }
}

export function tuneBlend (sets: readonly TuningSet[]): { vaderWeight: number; neutralBand: number; worstMargin: number } {
  let best = { vaderWeight: 0, neutralBand: 0, worstMargin: -Infinity, meanF1: -Infinity }
  for (const vaderWeight of WEIGHT_GRID) {
    for (const neutralBand of BAND_GRID) {
      const fit = polarFit(sets, vaderWeight, neutralBand)
      // A tiny tolerance so float noise cannot make the choice platform-dependent.
      const better = fit.worstMargin > best.worstMargin + 1e-12 ||
        (Math.abs(fit.worstMargin - best.worstMargin) <= 1e-12 && fit.meanF1 > best.meanF1 + 1e-12)
      if (better) best = { vaderWeight, neutralBand, ...fit }
    }
  }
  return { vaderWeight: best.vaderWeight, neutralBand: best.neutralBand, worstMargin: best.worstMargin }
}

interface Observation { features: number[]; correct: number; weight: number }

function observations (sets: readonly TuningSet[], vaderWeight: number, neutralBand: number, polar: boolean): Observation[] {
  const out: Observation[] = []
  for (const { items } of sets) {
    const chosen = items.flatMap(item => {
      const score = blendScore(item.signals, vaderWeight)
      const label = labelFor(score, neutralBand)
      if ((label !== 'neutral') !== polar) return []
      return [{ features: [1, ...calibrationFeatures(item.signals, score)], correct: label === goldLabel(item.rating) ? 1 : 0 }]
    })
    for (const o of chosen) out.push({ ...o, weight: 1 / chosen.length })
  }
  return out
}

/** Weighted logistic regression by Newton's method; deterministic, converges in a few steps. */
export function fitLogistic (data: readonly Observation[], iterations = 50): number[] {
  const k = data[0]?.features.length ?? 0
  let beta = new Array<number>(k).fill(0)
  for (let iter = 0; iter < iterations; iter++) {
    const gradient = beta.map(b => -L2 * b)
    const hessian = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => (i === j ? L2 : 0)))
    for (const { features, correct, weight } of data) {
      const z = features.reduce((sum, x, i) => sum + x * beta[i]!, 0)
      const p = 1 / (1 + Math.exp(-z))
      for (let i = 0; i < k; i++) {
        gradient[i]! += weight * (correct - p) * features[i]!
        for (let j = 0; j < k; j++) hessian[i]![j]! += weight * p * (1 - p) * features[i]! * features[j]!
      }
    }
    const step = solve(hessian, gradient)
    beta = beta.map((b, i) => b + step[i]!)
    if (step.every(s => Math.abs(s) < 1e-10)) break
  }
  return beta
}

/** Gaussian elimination with partial pivoting for the small Newton systems. */
function solve (matrix: number[][], rhs: number[]): number[] {
  const n = rhs.length
  const a = matrix.map((row, i) => [...row, rhs[i]!])
  for (let col = 0; col < n; col++) {
    let pivot = col
    for (let row = col + 1; row < n; row++) if (Math.abs(a[row]![col]!) > Math.abs(a[pivot]![col]!)) pivot = row
    ;[a[col], a[pivot]] = [a[pivot]!, a[col]!]
    for (let row = col + 1; row < n; row++) {
      const factor = a[row]![col]! / a[col]![col]!
      for (let c = col; c <= n; c++) a[row]![c]! -= factor * a[col]![c]!
    }
  }
  const x = new Array<number>(n).fill(0)
  for (let row = n - 1; row >= 0; row--) {
    let sum = a[row]![n]!
    for (let c = row + 1; c < n; c++) sum -= a[row]![c]! * x[c]!
    x[row] = sum / a[row]![row]!
  }
  return x
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits))

export function tuneSentimentModel (sets: readonly TuningSet[]): { model: SentimentModel; worstMargin: number } {
  const { vaderWeight, neutralBand, worstMargin } = tuneBlend(sets)
  const [intercept = 0, magnitude = 0, agreement = 0, socialCues = 0, logWords = 0] =
    fitLogistic(observations(sets, vaderWeight, neutralBand, true)).map(b => round(b, 3))
  const calibration: ConfidenceCalibration = { intercept, magnitude, agreement, socialCues, logWords }
  const neutral = observations(sets, vaderWeight, neutralBand, false)
  const totalWeight = neutral.reduce((sum, o) => sum + o.weight, 0)
  const neutralConfidence = totalWeight === 0
    ? 0
    : round(neutral.reduce((sum, o) => sum + o.weight * o.correct, 0) / totalWeight, 3)
  return { model: { vaderWeight, neutralBand, calibration, neutralConfidence }, worstMargin }
}

async function main (): Promise<void> {
  const { model, worstMargin } = tuneSentimentModel(loadTuningSets())
  console.log(`worst margin over VADER's published F1 and r, tuning halves: ${worstMargin.toFixed(4)}`)
  console.log('TUNED_SENTIMENT_MODEL =', JSON.stringify(model, null, 2))
  if (JSON.stringify(model) !== JSON.stringify(TUNED_SENTIMENT_MODEL)) {
    console.error('analyze.ts holds different values: copy the ones above into TUNED_SENTIMENT_MODEL.')
    process.exitCode = 1
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
