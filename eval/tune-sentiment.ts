// Fits bees/sentiment-analyzer/sentiment-model.json on the TUNING halves of
// the VADER ground-truth sets only. With --write it rewrites the file;
// without, it exits non-zero if the file holds anything else.
//
//   npm run tune:sentiment [-- --write]
//
// 1. Lexicon weight: the VADER/wink-nlp mix that maximises the worst margin,
//    over the four sets, of (F1 - VADER's published F1) and (r - published r);
//    ties go to the higher mean F1.
// 2. Learned model: a word-feature logistic regression of "the rating is
//    positive" (eval/sparse-logistic.ts), every set weighted equally, over the
//    lexicon scores, word uni/bigrams and the mean GloVe vector of the words
//    (eval/word-vectors.ts). Its target is soft, the logistic of the mean
//    rating: a text the raters agree on (+3) pulls harder than one they split
//    on (+0.2). Its penalty is chosen by two-fold cross-validation inside the
//    tuning halves, for the best mean accuracy on the most confident half.
// 3. Score blend: how much of the learned view enters the score, by register,
//    and how strong it must be to label text the lexicons find silent. Chosen
//    on the out-of-fold logits for the best mean of the three label metrics
//    the evaluation reports (F1, r, macro-F1), among the blends that beat
//    VADER's published F1 and r on every set by a standard error.
// 4. Confidence: Platt scaling of the out-of-fold logits in the label's
//    direction, by register, makes it a probability; a neutral label gets how
//    often a neutral prediction is right (gold exactly 0). The register is a
//    word-unigram logistic regression of "this text is a tweet" (RegisterModel),
//    fitted out of fold for the scaling and on the whole tuning halves to ship.
import { pathToFileURL } from 'node:url'
import { readFileSync, writeFileSync } from 'node:fs'
import {
  blendScore, calibrationFeatures, denseFeatures, labelFor, positiveLogit, registerFeatures, registerProbability,
  type RegisterModel, type ScoreBlend, type WordModel
} from '../bees/sentiment-analyzer/model.js'
import type { SentimentModelFile } from '../bees/sentiment-analyzer/model-file.js'
import { extractSignals, type SentimentSignals } from '../bees/sentiment-analyzer/signals.js'
import { SENTIMENT_SETS, fnv1a32, loadSet, splitHalf, type SentimentSet } from './datasets.js'
import {
  confidentHalfAccuracy, expectedCalibrationError, goldLabel, macroF1, paperPolarScores, pearson, strongestRatedHalfAccuracy,
  type ScoredPrediction
} from './sentiment-metrics.js'
import { fitSparseLogistic, type Example, type LogisticFit } from './sparse-logistic.js'
import { VECTOR_DIMENSIONS, loadWordVectors, meanVector, projectVectors, type WordVectors } from './word-vectors.js'

export interface TuningItem { id: string; rating: number; signals: SentimentSignals; meanVector: number[] }
export interface TuningSet { set: SentimentSet; items: TuningItem[] }

const WEIGHT_GRID = Array.from({ length: 101 }, (_, i) => i / 100)
const SHARE_GRID = Array.from({ length: 21 }, (_, i) => i / 20)
const SOCIAL_SHARE_GRID = [0, 0.1, 0.2, 0.3, 0.4, 0.5]
const SCALE_GRID = [0.25, 0.5, 1, 2]
// tanh never reaches 1: a threshold of 1 keeps all lexicon-silent text neutral.
const SILENT_THRESHOLD_GRID = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1]
// Light ridge penalty: keeps the fit unique when a feature barely varies.
const L2 = 1e-3

export function loadTuningSets (vectors: WordVectors): TuningSet[] {
  return SENTIMENT_SETS.map(set => ({
    set,
    items: splitHalf(set.name, loadSet(set), 'tuning').map(item => {
      const signals = extractSignals(item.text)
      return { id: item.id, rating: item.rating, signals, meanVector: meanVector(signals.words, vectors) }
    })
  }))
}

/** The paper's F1 and Pearson r of one set's predictions. */
function polarMetrics (scored: readonly ScoredPrediction[]): { f1: number; r: number } {
  return { f1: paperPolarScores(scored).f1, r: pearson(scored.map(p => p.score), scored.map(p => p.rating)) }
}

function polarFit (sets: readonly TuningSet[], vaderWeight: number): { worstMargin: number; meanF1: number } {
  // The lexicons alone do not read the logits.
  const noLogits = sets.map(({ items }) => new Array<number>(items.length).fill(0))
  const predictions = blendPredictions(sets, lexiconOnly(vaderWeight), noLogits)
  let worstMargin = Infinity
  let meanF1 = 0
  sets.forEach(({ set }, s) => {
    const { f1, r } = polarMetrics(predictions[s]!)
    worstMargin = Math.min(worstMargin, f1 - set.vader.f1, r - set.vader.r)
    meanF1 += f1 / sets.length
  })
  return { worstMargin, meanF1 }
}

export function tuneVaderWeight (sets: readonly TuningSet[]): { vaderWeight: number; worstMargin: number } {
  let best = { vaderWeight: 0, worstMargin: -Infinity, meanF1: -Infinity }
  for (const vaderWeight of WEIGHT_GRID) {
    const fit = polarFit(sets, vaderWeight)
    if (betterMargins(fit, best)) best = { vaderWeight, ...fit }
  }
  return { vaderWeight: best.vaderWeight, worstMargin: best.worstMargin }
}

// A tiny tolerance so float noise cannot make a choice platform-dependent.
const EPSILON = 1e-12

function betterMargins (fit: { worstMargin: number; meanF1: number }, best: { worstMargin: number; meanF1: number }): boolean {
  return fit.worstMargin > best.worstMargin + EPSILON ||
    (Math.abs(fit.worstMargin - best.worstMargin) <= EPSILON && fit.meanF1 > best.meanF1 + EPSILON)
}

/** The lexicons alone: what the learned model's penalty is chosen under. */
const lexiconOnly = (vaderWeight: number): ScoreBlend =>
  ({ vaderWeight, learnedShare: 0, learnedShareSocial: 0, learnedScale: 1, silentThreshold: 1 })

interface Observation { features: number[]; correct: number; weight: number }

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

const LAMBDA_GRID = [3e-4, 1e-3, 3e-3]
const ITERATIONS = 600
const MIN_WORD_COUNT = 2
const WEIGHT_DIGITS = 4

// The split's hash decides the tuning half by its lowest bit (which, for
// FNV-1a, is a parity of the input bytes and so is the same for any salt);
// the highest bit is independent of it and splits the tuning half in two.
const foldOf = (set: SentimentSet, item: TuningItem): number => fnv1a32(`${set.name}:${item.id}`) >>> 31

function examples (sets: readonly TuningSet[], keep: (set: SentimentSet, item: TuningItem) => boolean): Example[] {
  return sets.flatMap(({ set, items }) => {
    const polar = items.filter(item => item.rating !== 0 && keep(set, item))
    return polar.map(item => ({
      dense: [...denseFeatures(item.signals), ...item.meanVector],
      words: item.signals.words,
      positive: 1 / (1 + Math.exp(-item.rating)),
      weight: 1 / polar.length
    }))
  })
}

/** The fit as the shipped model uses it: the mean-vector weights folded into one number per word. */
function asWordModel (fit: LogisticFit, vectors: WordVectors): WordModel {
  const lexical = fit.dense.length - VECTOR_DIMENSIONS
  return {
    dense: fit.dense.slice(0, lexical),
    words: fit.words,
    vectors: projectVectors(fit.dense.slice(lexical), vectors),
    // Uncalibrated: P = sigmoid(logit in the label's direction).
    calibration: [0, 1]
  }
}

/** Out-of-fold logit of every tuning item, from models fitted on the other fold. */
function outOfFoldLogits (sets: readonly TuningSet[], vectors: WordVectors, lambda: number): number[][] {
  const logits = sets.map(({ items }) => new Array<number>(items.length).fill(0))
  for (const fold of [0, 1]) {
    const fit = asWordModel(fitSparseLogistic(examples(sets, (set, item) => foldOf(set, item) !== fold),
      { lambda, iterations: ITERATIONS, minCount: MIN_WORD_COUNT }), vectors)
    sets.forEach(({ set, items }, s) => items.forEach((item, i) => {
      if (foldOf(set, item) === fold) logits[s]![i] = positiveLogit(item.signals, fit)
    }))
  }
  return logits
}

/** Confidence here is the raw logit in the label's direction, before Platt scaling. */
function blendPredictions (sets: readonly TuningSet[], blend: ScoreBlend, logits: number[][]): ScoredPrediction[][] {
  return sets.map(({ items }, s) => items.map((item, i) => {
    const z = logits[s]![i]!
    const score = blendScore(item.signals, z, blend)
    const label = labelFor(score)
    const confidence = label === 'neutral' ? -Infinity : label === 'positive' ? z : -z
    return { rating: item.rating, label, confidence, score }
  }))
}

interface BlendFit {
  /** Worst margin over VADER's published F1 and r, in standard errors of the tuning half's estimate. */
  worstMargin: number
  meanMetrics: number
}

function blendFit (sets: readonly TuningSet[], predictions: readonly ScoredPrediction[][]): BlendFit {
  let worstMargin = Infinity
  let meanMetrics = 0
  sets.forEach(({ set }, s) => {
    const scored = predictions[s]!
    const n = scored.length
    const { f1, r } = polarMetrics(scored)
    // Standard errors: of a proportion for F1, and of Pearson's r.
    const f1Error = Math.sqrt(f1 * (1 - f1) / n)
    const rError = (1 - r * r) / Math.sqrt(n - 2)
    worstMargin = Math.min(worstMargin, (f1 - set.vader.f1) / f1Error, (r - set.vader.r) / rError)
    meanMetrics += (f1 + r + macroF1(scored)) / sets.length
  })
  return { worstMargin, meanMetrics }
}

/**
 * The reporting half is a fresh sample of the same size as the tuning half, so
 * a blend that beats a published figure by less than a standard error here
 * may well miss it there.
 */
const REQUIRED_MARGIN = 1

/**
 * The blend with the best mean of F1, r and macro-F1 among those that beat
 * VADER's published F1 and r on every set by a standard error; if none does,
 * the one with the best worst margin.
 */
export function tuneScoreBlend (sets: readonly TuningSet[], vaderWeight: number, logits: number[][]): { blend: ScoreBlend; fit: BlendFit } {
  let best: { blend: ScoreBlend; fit: BlendFit } | undefined
  for (const learnedShare of SHARE_GRID) {
    for (const learnedShareSocial of SOCIAL_SHARE_GRID) {
      for (const learnedScale of SCALE_GRID) {
        for (const silentThreshold of SILENT_THRESHOLD_GRID) {
          const blend = { vaderWeight, learnedShare, learnedShareSocial, learnedScale, silentThreshold }
          const fit = blendFit(sets, blendPredictions(sets, blend, logits))
          if (best === undefined || betterBlend(fit, best.fit)) best = { blend, fit }
        }
      }
    }
  }
  return best!
}

function betterBlend (fit: BlendFit, best: BlendFit): boolean {
  const qualifies = (f: BlendFit): boolean => f.worstMargin >= REQUIRED_MARGIN
  if (qualifies(fit) !== qualifies(best)) return qualifies(fit)
  if (!qualifies(fit)) return fit.worstMargin > best.worstMargin + EPSILON
  return fit.meanMetrics > best.meanMetrics + EPSILON
}

const REGISTER_LAMBDA = 1e-3
const REGISTER_ITERATIONS = 300

/** Every set weighs the same; the tweets are the social-media register. */
function registerExamples (sets: readonly TuningSet[], keep: (set: SentimentSet, item: TuningItem) => boolean): Example[] {
  return sets.flatMap(({ set, items }) => {
    const kept = items.filter(item => keep(set, item))
    return kept.map(item => ({
      dense: registerFeatures(item.signals),
      words: unigrams(item.signals.words),
      positive: set.name === 'tweets' ? 1 : 0,
      weight: 1 / kept.length
    }))
  })
}

const unigrams = (features: readonly string[]): string[] => features.filter(feature => !feature.includes(' '))

function fitRegister (sets: readonly TuningSet[], keep: (set: SentimentSet, item: TuningItem) => boolean): RegisterModel {
  return fitSparseLogistic(registerExamples(sets, keep), { lambda: REGISTER_LAMBDA, iterations: REGISTER_ITERATIONS, minCount: MIN_WORD_COUNT })
}

/** Out-of-fold register probability of every tuning item, like outOfFoldLogits. */
function outOfFoldRegisters (sets: readonly TuningSet[]): number[][] {
  const registers = sets.map(({ items }) => new Array<number>(items.length).fill(0))
  for (const fold of [0, 1]) {
    const model = fitRegister(sets, (set, item) => foldOf(set, item) !== fold)
    sets.forEach(({ set, items }, s) => items.forEach((item, i) => {
      if (foldOf(set, item) === fold) registers[s]![i] = registerProbability(item.signals, model)
    }))
  }
  return registers
}

function plattScaling (predictions: readonly ScoredPrediction[][], registers: readonly number[][]): number[] {
  const data: Observation[] = predictions.flatMap((set, s) => {
    const polar = set.flatMap((p, i) => (p.label === 'neutral' ? [] : [{ p, register: registers[s]![i]! }]))
    return polar.map(({ p, register }) => ({
      features: calibrationFeatures(p.confidence, register),
      correct: p.label === goldLabel(p.rating) ? 1 : 0,
      weight: 1 / polar.length
    }))
  })
  return fitLogistic(data).map(w => round(w, 3))
}

/** The predictions with their confidence Platt-scaled, as the shipped model gives it. */
function calibrated (predictions: readonly ScoredPrediction[][], registers: readonly number[][], calibration: readonly number[], neutral: number): ScoredPrediction[][] {
  return predictions.map((set, s) => set.map((p, i) => {
    if (p.label === 'neutral') return { ...p, confidence: neutral }
    const features = calibrationFeatures(p.confidence, registers[s]![i]!)
    return { ...p, confidence: 1 / (1 + Math.exp(-features.reduce((sum, x, k) => sum + x * calibration[k]!, 0))) }
  }))
}

export interface TuningReport {
  file: SentimentModelFile
  /** Worst margin over VADER's published F1 and r of the lexicons alone. */
  lexiconMargin: number
  /** The same for the final blend, out of fold, in standard errors. */
  blendMargin: number
  lambda: number
  /** Out-of-fold confident-half accuracy per set, with the final blend. */
  crossValidated: number[]
  /** The same labels' accuracy on the half the raters rated most strongly, per set. */
  strongestRated: number[]
  /** Out-of-fold expected calibration error per set (10 bins). */
  calibrationErrors: number[]
}

export function tuneSentimentModel (sets: readonly TuningSet[], vectors: WordVectors): TuningReport {
  const { vaderWeight, worstMargin: lexiconMargin } = tuneVaderWeight(sets)
  let best = { lambda: 0, mean: -Infinity, logits: [] as number[][] }
  for (const lambda of LAMBDA_GRID) {
    const logits = outOfFoldLogits(sets, vectors, lambda)
    const perSet = blendPredictions(sets, lexiconOnly(vaderWeight), logits).map(confidentHalfAccuracy)
    const mean = perSet.reduce((sum, a) => sum + a, 0) / perSet.length
    if (mean > best.mean + EPSILON) best = { lambda, mean, logits }
  }
  const { blend, fit: { worstMargin: blendMargin } } = tuneScoreBlend(sets, vaderWeight, best.logits)
  const predictions = blendPredictions(sets, blend, best.logits)
  const registers = outOfFoldRegisters(sets)
  const calibration = plattScaling(predictions, registers)
  const neutral = neutralConfidence(predictions)
  const register = fitRegister(sets, () => true)
  const registerWords = rounded(register.words).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const fit = asWordModel(fitSparseLogistic(examples(sets, () => true), { lambda: best.lambda, iterations: ITERATIONS, minCount: MIN_WORD_COUNT }), vectors)
  const words = rounded(fit.words).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  // In the vectors' own order, most frequent word first.
  const vectorWords = rounded(fit.vectors)
  const file: SentimentModelFile = {
    ...blend,
    neutralConfidence: neutral,
    dense: fit.dense.map(w => round(w, WEIGHT_DIGITS)),
    calibration,
    words: words.map(([word]) => word),
    weights: words.map(([, w]) => w),
    vectorWords: vectorWords.map(([word]) => word),
    vectorWeights: vectorWords.map(([, w]) => w),
    registerDense: register.dense.map(w => round(w, WEIGHT_DIGITS)),
    registerWords: registerWords.map(([word]) => word),
    registerWeights: registerWords.map(([, w]) => w)
  }
  return {
    file,
    lexiconMargin,
    blendMargin,
    lambda: best.lambda,
    crossValidated: predictions.map(confidentHalfAccuracy),
    strongestRated: predictions.map(strongestRatedHalfAccuracy),
    calibrationErrors: calibrated(predictions, registers, calibration, neutral).map(set => expectedCalibrationError(set))
  }
}

function rounded (weights: ReadonlyMap<string, number>): Array<readonly [string, number]> {
  return [...weights].map(([word, w]) => [word, round(w, WEIGHT_DIGITS)] as const).filter(([, w]) => w !== 0)
}

/** How often a neutral label is right (gold exactly 0), averaged over the sets that have neutral labels. */
function neutralConfidence (predictions: readonly ScoredPrediction[][]): number {
  let weighted = 0
  let total = 0
  for (const set of predictions) {
    const neutral = set.filter(p => p.label === 'neutral')
    if (neutral.length === 0) continue
    weighted += neutral.filter(p => goldLabel(p.rating) === 'neutral').length / neutral.length
    total += 1
  }
  return total === 0 ? 0 : round(weighted / total, 3)
}

export const MODEL_FILE = new URL('../bees/sentiment-analyzer/sentiment-model.json', import.meta.url)

async function main (): Promise<void> {
  const vectors = loadWordVectors()
  const sets = loadTuningSets(vectors)
  const { file, lexiconMargin, blendMargin, lambda, crossValidated, strongestRated, calibrationErrors } = tuneSentimentModel(sets, vectors)
  const perSet = (values: readonly number[]): string => sets.map(({ set }, s) => `${set.name} ${values[s]!.toFixed(3)}`).join(', ')
  console.log(`lexicons: vaderWeight ${file.vaderWeight}; worst margin over VADER's published F1 and r: ${lexiconMargin.toFixed(4)}`)
  console.log(`word model: lambda ${lambda}, ${file.words.length} word features, ${file.vectorWords.length} word vectors`)
  console.log(`score blend: learned share ${file.learnedShare} (social ${file.learnedShareSocial}), scale ${file.learnedScale}, ` +
    `silent threshold ${file.silentThreshold}; out-of-fold worst margin ${blendMargin.toFixed(2)} standard errors, confident-half accuracy ` +
    perSet(crossValidated))
  console.log(`the same labels on the half the raters rated most strongly (what ranking by their agreement would give): ${perSet(strongestRated)}`)
  console.log(`register model: ${file.registerWords.length} words; Platt scaling: ${file.calibration.join(', ')}; neutral confidence ${file.neutralConfidence}`)
  console.log(`out-of-fold expected calibration error (10 bins): ${perSet(calibrationErrors)}`)
  const json = JSON.stringify(file) + '\n'
  if (process.argv.includes('--write')) {
    writeFileSync(MODEL_FILE, json)
    console.log(`wrote ${MODEL_FILE.pathname}`)
  } else if (readFileSync(MODEL_FILE, 'utf8') !== json) {
    console.error('sentiment-model.json differs from this fit: rerun with --write.')
    process.exitCode = 1
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
