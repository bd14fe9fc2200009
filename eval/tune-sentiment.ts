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
// 4. Confidence: Platt scaling over what the text shows (the logit and the
//    lexicon scores in the label's direction, length, conflict, social cues,
//    VADER's emphasis cues: model.ts calibrationFeatures), fitted on the out-of-fold views of the four
//    tuning halves and on the tuning halves of the three UCI sets and of the
//    Reddit sample (eval/unseen-sets.ts; the word model never saw them), every
//    source weighing the same; a neutral label
//    gets how often a neutral prediction is right (gold exactly 0). Which
//    features get a weight is chosen by the leave-one-source-out calibration
//    error on these tuning halves: the worst source's, then the mean.
// 5. Check of a prior the tuner does not fit (model.ts NO_SENTIMENT_WORD_SHARE: text without a sentiment word keeps
//    part of its confidence's distance from 1/2): with the chosen features, no source's leave-one-source-out error
//    may rise by more than WORST_TIE against the same calibration without it; the script exits 1 if one does.
import { pathToFileURL } from 'node:url'
import { readFileSync, writeFileSync } from 'node:fs'
import {
  CALIBRATION_FEATURE_NAMES, NO_SENTIMENT_WORD_SHARE, blendScore, denseFeatures, labelFor, learnedView, type LearnedView, type ScoreBlend,
  type WordModel
} from '../bees/sentiment-analyzer/model.js'
import type { SentimentModelFile } from '../bees/sentiment-analyzer/model-file.js'
import { extractSignals, type SentimentSignals } from '../bees/sentiment-analyzer/signals.js'
import { SENTIMENT_SETS, fnv1a32, loadSet, splitHalf, type SentimentSet } from './datasets.js'
import {
  calibrate, calibrationCase, fitCalibration, leaveOneSourceOut, worstError, type SourceCases, type TransferRow
} from './leave-one-source-out.js'
import {
  confidentHalfAccuracy, expectedCalibrationError, macroF1, paperPolarScores, pearson, strongestRatedHalfAccuracy,
  type ScoredPrediction
} from './sentiment-metrics.js'
import { loadUnseenSets } from './unseen-sets.js'
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

/** A labelled set the word model is not fitted on: its tuning half feeds the calibration only. */
export interface CalibrationSet { source: string; items: Array<{ rating: number; signals: SentimentSignals }> }

export function loadCalibrationSets (): CalibrationSet[] {
  return loadUnseenSets().map(({ name, items }) => ({
    source: name,
    items: splitHalf(name, items, 'tuning').map(item => ({ rating: item.rating, signals: extractSignals(item.text) }))
  }))
}

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

/** A WordModel whose weights the tuner can still list: the shipped one reads them into word tables. */
type FittedWordModel = WordModel & { words: ReadonlyMap<string, number>; vectors: ReadonlyMap<string, number> }

/** The fit as the shipped model uses it: the mean-vector weights folded into one number per word. */
function asWordModel (fit: LogisticFit, vectors: WordVectors): FittedWordModel {
  const lexical = fit.dense.length - VECTOR_DIMENSIONS
  return {
    dense: fit.dense.slice(0, lexical),
    words: fit.words,
    vectors: projectVectors(fit.dense.slice(lexical), vectors),
    // Uncalibrated: P = sigmoid(logit in the label's direction).
    calibration: [0, 1]
  }
}

/** Out-of-fold view of every tuning item, from models fitted on the other fold. */
function outOfFoldViews (sets: readonly TuningSet[], vectors: WordVectors, lambda: number): LearnedView[][] {
  const views = sets.map(({ items }) => new Array<LearnedView>(items.length))
  for (const fold of [0, 1]) {
    const fit = asWordModel(fitSparseLogistic(examples(sets, (set, item) => foldOf(set, item) !== fold),
      { lambda, iterations: ITERATIONS, minCount: MIN_WORD_COUNT }), vectors)
    sets.forEach(({ set, items }, s) => items.forEach((item, i) => {
      if (foldOf(set, item) === fold) views[s]![i] = learnedView(item.signals, fit)
    }))
  }
  return views
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

/**
 * The feature sets the calibration may use (indexes into calibrationFeatures()): temperature scaling alone, then
 * more of what the text shows. None identifies a source.
 */
export const CALIBRATION_CANDIDATES: ReadonlyArray<{ name: string; features: readonly number[] }> = [
  { name: 'temperature', features: [0, 1] },
  { name: 'length', features: [0, 1, 4, 5] },
  { name: 'lexicons, length', features: [0, 1, 2, 3, 4, 5] },
  { name: 'lexicons, length, conflict', features: [0, 1, 2, 3, 4, 5, 6, 7] },
  { name: 'lexicons, length, conflict, social cue', features: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] },
  { name: 'lexicons, length, conflict, emphasis', features: [0, 1, 2, 3, 4, 5, 6, 7, 10] }
]

const CALIBRATION_DIGITS = 3

export interface CandidateTransfer { name: string; rows: TransferRow[] }

/**
 * An expected calibration error on a few thousand texts moves by about this much between two samples of the same
 * source, so worst errors closer than this are a tie.
 */
const WORST_TIE = 0.01

/** The candidate with the lowest worst leave-one-source-out error, a tie (WORST_TIE) going to the lowest mean error. */
export function chooseCalibration (sources: readonly SourceCases[]): { chosen: number; candidates: CandidateTransfer[] } {
  const candidates = CALIBRATION_CANDIDATES.map(({ name, features }) => ({ name, rows: leaveOneSourceOut(sources, features) }))
  const worst = candidates.map(({ rows }) => worstError(rows))
  const mean = candidates.map(({ rows }) => rows.reduce((sum, row) => sum + row.calibrationError, 0) / rows.length)
  const best = Math.min(...worst)
  let chosen = -1
  candidates.forEach((_, c) => {
    if (worst[c]! <= best + WORST_TIE && (chosen === -1 || mean[c]! < mean[chosen]! - EPSILON)) chosen = c
  })
  return { chosen, candidates }
}

/**
 * The calibration's cases: the four tuning halves with their out-of-fold views, then the calibration sets with the
 * shipped word model's; noSentimentWordShare 1 leaves the prior for text without a sentiment word out.
 */
function calibrationSources (
  sets: readonly TuningSet[], views: LearnedView[][], blend: ScoreBlend, extra: readonly CalibrationSet[], fit: WordModel, noSentimentWordShare?: number
): SourceCases[] {
  const own = sets.map(({ set, items }, s) => ({
    source: set.name,
    cases: items.map((item, i) => {
      const view = views[s]![i]!
      return calibrationCase(item.rating, blendScore(item.signals, view.logit, blend), item.signals, view, noSentimentWordShare)
    })
  }))
  const unseen = extra.map(({ source, items }) => ({
    source,
    cases: items.map(item => {
      const view = learnedView(item.signals, fit)
      return calibrationCase(item.rating, blendScore(item.signals, view.logit, blend), item.signals, view, noSentimentWordShare)
    })
  }))
  return [...own, ...unseen]
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
  /** Expected calibration error (10 bins) per calibration source with the shipped calibration, fitted on them all. */
  calibrationErrors: Array<{ source: string; error: number }>
  /** Leave-one-source-out errors of every candidate calibration, and which was chosen. */
  transfer: { chosen: number; candidates: CandidateTransfer[] }
  /** The chosen calibration's leave-one-source-out errors without the prior for text without a sentiment word. */
  withoutPrior: TransferRow[]
}

export function tuneSentimentModel (sets: readonly TuningSet[], extra: readonly CalibrationSet[], vectors: WordVectors): TuningReport {
  const { vaderWeight, worstMargin: lexiconMargin } = tuneVaderWeight(sets)
  let best = { lambda: 0, mean: -Infinity, views: [] as LearnedView[][] }
  for (const lambda of LAMBDA_GRID) {
    const views = outOfFoldViews(sets, vectors, lambda)
    const perSet = blendPredictions(sets, lexiconOnly(vaderWeight), logitsOf(views)).map(confidentHalfAccuracy)
    const mean = perSet.reduce((sum, a) => sum + a, 0) / perSet.length
    if (mean > best.mean + EPSILON) best = { lambda, mean, views }
  }
  const logits = logitsOf(best.views)
  const { blend, fit: { worstMargin: blendMargin } } = tuneScoreBlend(sets, vaderWeight, logits)
  const predictions = blendPredictions(sets, blend, logits)
  const fit = asWordModel(fitSparseLogistic(examples(sets, () => true), { lambda: best.lambda, iterations: ITERATIONS, minCount: MIN_WORD_COUNT }), vectors)
  const sources = calibrationSources(sets, best.views, blend, extra, fit)
  const transfer = chooseCalibration(sources)
  const withoutPrior = leaveOneSourceOut(calibrationSources(sets, best.views, blend, extra, fit, 1), CALIBRATION_CANDIDATES[transfer.chosen]!.features)
  const fitted = fitCalibration(sources, CALIBRATION_CANDIDATES[transfer.chosen]!.features)
  const calibration = { weights: fitted.weights.map(w => round(w, CALIBRATION_DIGITS)), neutralConfidence: round(fitted.neutralConfidence, CALIBRATION_DIGITS) }
  const words = rounded(fit.words).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  // In the vectors' own order, most frequent word first.
  const vectorWords = rounded(fit.vectors)
  const file: SentimentModelFile = {
    ...blend,
    neutralConfidence: calibration.neutralConfidence,
    dense: fit.dense.map(w => round(w, WEIGHT_DIGITS)),
    calibration: calibration.weights,
    words: words.map(([word]) => word),
    weights: words.map(([, w]) => w),
    vectorWords: vectorWords.map(([word]) => word),
    vectorWeights: vectorWords.map(([, w]) => w)
  }
  return {
    file,
    lexiconMargin,
    blendMargin,
    lambda: best.lambda,
    crossValidated: predictions.map(confidentHalfAccuracy),
    strongestRated: predictions.map(strongestRatedHalfAccuracy),
    calibrationErrors: sources.map(({ source, cases }) => ({ source, error: expectedCalibrationError(calibrate(cases, calibration)) })),
    transfer,
    withoutPrior
  }
}

const logitsOf = (views: readonly LearnedView[][]): number[][] => views.map(set => set.map(view => view.logit))

function rounded (weights: ReadonlyMap<string, number>): Array<readonly [string, number]> {
  return [...weights].map(([word, w]) => [word, round(w, WEIGHT_DIGITS)] as const).filter(([, w]) => w !== 0)
}

export const MODEL_FILE = new URL('../bees/sentiment-analyzer/sentiment-model.json', import.meta.url)

async function main (): Promise<void> {
  const vectors = loadWordVectors()
  const sets = loadTuningSets(vectors)
  const report = tuneSentimentModel(sets, loadCalibrationSets(), vectors)
  const { file, lexiconMargin, blendMargin, lambda, crossValidated, strongestRated, calibrationErrors, transfer, withoutPrior } = report
  const perSet = (values: readonly number[]): string => sets.map(({ set }, s) => `${set.name} ${values[s]!.toFixed(3)}`).join(', ')
  console.log(`lexicons: vaderWeight ${file.vaderWeight}; worst margin over VADER's published F1 and r: ${lexiconMargin.toFixed(4)}`)
  console.log(`word model: lambda ${lambda}, ${file.words.length} word features, ${file.vectorWords.length} word vectors`)
  console.log(`score blend: learned share ${file.learnedShare} (social ${file.learnedShareSocial}), scale ${file.learnedScale}, ` +
    `silent threshold ${file.silentThreshold}; out-of-fold worst margin ${blendMargin.toFixed(2)} standard errors, confident-half accuracy ` +
    perSet(crossValidated))
  console.log(`the same labels on the half the raters rated most strongly (what ranking by their agreement would give): ${perSet(strongestRated)}`)
  console.log('leave-one-source-out expected calibration error (10 bins) on the tuning halves, by candidate calibration:')
  for (const [c, { name, rows }] of transfer.candidates.entries()) {
    const mean = rows.reduce((sum, row) => sum + row.calibrationError, 0) / rows.length
    console.log(`${c === transfer.chosen ? '* ' : '  '}${name}: worst ${worstError(rows).toFixed(3)}, mean ${mean.toFixed(3)}; ` +
      rows.map(row => `${row.source} ${row.calibrationError.toFixed(3)}`).join(', '))
  }
  const weights = file.calibration.map((w, i) => `${CALIBRATION_FEATURE_NAMES[i]} ${w}`).join(', ')
  console.log(`Platt scaling, fitted on all ${calibrationErrors.length}: ${weights}; neutral confidence ${file.neutralConfidence}`)
  console.log(`its expected calibration error (10 bins), in-source: ${calibrationErrors.map(({ source, error }) => `${source} ${error.toFixed(3)}`).join(', ')}`)
  const shipped = transfer.candidates[transfer.chosen]!.rows
  const rise = Math.max(...shipped.map((row, i) => row.calibrationError - withoutPrior[i]!.calibrationError))
  console.log(`without the prior for text without a sentiment word (NO_SENTIMENT_WORD_SHARE ${NO_SENTIMENT_WORD_SHARE}): ` +
    withoutPrior.map(row => `${row.source} ${row.calibrationError.toFixed(3)}`).join(', ') + `; largest rise with it ${rise.toFixed(3)}`)
  if (rise > WORST_TIE) {
    console.error(`the prior raises a source's leave-one-source-out error by more than ${WORST_TIE}: lower it in model.ts.`)
    process.exitCode = 1
  }
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
