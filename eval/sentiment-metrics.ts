// Scoring of sentiment predictions against human mean ratings in [-4, 4].
// The primary metric is the VADER paper's polar precision/recall/F1 (Hutto &
// Gilbert 2014, Table 4); the rest are secondary views of the same predictions.

export type Label = 'positive' | 'negative' | 'neutral'

export interface ScoredPrediction { rating: number; label: Label; confidence: number; score: number }

export interface PolarScores { precision: number; recall: number; f1: number }

/**
 * Ratings closer to 0 than this count as gold neutral for macroF1. Half a point
 * on the 9-point scale is where 20 raters' mean no longer clearly leans either
 * way; the paper itself has no neutral class, hence a secondary metric.
 */
export const NEUTRAL_RATING_BAND = 0.5

/** The paper's gold class: the sign of the mean rating (exactly 0 is not polar). */
export function goldLabel (rating: number): Label {
  if (rating > 0) return 'positive'
  if (rating < 0) return 'negative'
  return 'neutral'
}

/**
 * Precision = correct polar predictions / polar predictions; recall = correct
 * polar predictions / polar gold items. A neutral prediction is never "correct"
 * here, so this rewards committing to a polarity whenever there is any signal.
 */
export function paperPolarScores (predictions: readonly ScoredPrediction[]): PolarScores {
  let predictedPolar = 0
  let goldPolar = 0
  let correct = 0
  for (const p of predictions) {
    const gold = goldLabel(p.rating)
    if (p.label !== 'neutral') predictedPolar += 1
    if (gold !== 'neutral') goldPolar += 1
    if (p.label !== 'neutral' && p.label === gold) correct += 1
  }
  const precision = predictedPolar === 0 ? 0 : correct / predictedPolar
  const recall = goldPolar === 0 ? 0 : correct / goldPolar
  const f1 = precision + recall === 0 ? 0 : 2 * precision * recall / (precision + recall)
  return { precision, recall, f1 }
}

/** Pearson correlation; 0 when either side has no variance (no linear relation to report). */
export function pearson (xs: readonly number[], ys: readonly number[]): number {
  if (xs.length !== ys.length) throw new RangeError('pearson: series differ in length')
  const n = xs.length
  if (n === 0) return 0
  let meanX = 0
  let meanY = 0
  for (let i = 0; i < n; i++) { meanX += xs[i]!; meanY += ys[i]! }
  meanX /= n
  meanY /= n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - meanX
    const dy = ys[i]! - meanY
    sxy += dx * dy
    sxx += dx * dx
    syy += dy * dy
  }
  return sxx === 0 || syy === 0 ? 0 : sxy / Math.sqrt(sxx * syy)
}

export function bandedGoldLabel (rating: number, band = NEUTRAL_RATING_BAND): Label {
  return Math.abs(rating) < band ? 'neutral' : goldLabel(rating)
}

/** Unweighted mean of per-class F1 over positive, negative and neutral (banded gold). */
export function macroF1 (predictions: readonly ScoredPrediction[], band = NEUTRAL_RATING_BAND): number {
  const labels: Label[] = ['positive', 'negative', 'neutral']
  let sum = 0
  for (const label of labels) {
    let tp = 0
    let predicted = 0
    let actual = 0
    for (const p of predictions) {
      const gold = bandedGoldLabel(p.rating, band)
      if (p.label === label) predicted += 1
      if (gold === label) actual += 1
      if (p.label === label && gold === label) tp += 1
    }
    sum += predicted + actual === 0 ? 0 : 2 * tp / (predicted + actual)
  }
  return sum / labels.length
}

/**
 * Accuracy (against the paper's gold class) on the ceil(n/2) predictions with
 * the highest confidence; ties keep input order so the result is deterministic.
 */
export function confidentHalfAccuracy (predictions: readonly ScoredPrediction[]): number {
  if (predictions.length === 0) return 0
  const ranked = predictions
    .map((p, index) => ({ p, index }))
    .sort((a, b) => b.p.confidence - a.p.confidence || a.index - b.index)
    .slice(0, Math.ceil(predictions.length / 2))
  const correct = ranked.filter(({ p }) => p.label === goldLabel(p.rating)).length
  return correct / ranked.length
}

/**
 * The same accuracy on the half the raters felt most strongly about (largest
 * |mean rating|): a yardstick for the confidence. A confidence that ranks
 * better than the raters' own agreement leaves the labels, not the ranking,
 * as what limits the confident half.
 */
export function strongestRatedHalfAccuracy (predictions: readonly ScoredPrediction[]): number {
  return confidentHalfAccuracy(predictions.map(p => ({ ...p, confidence: Math.abs(p.rating) })))
}

/** One equal-width confidence bin: how many predictions fell in it, their mean confidence and how often they were right. */
export interface ReliabilityBin { low: number; high: number; count: number; meanConfidence: number; accuracy: number }

/** Predictions grouped into `bins` equal-width confidence bins (a confidence of 1 goes in the last); empty bins have zeros. */
export function reliabilityBins (predictions: readonly ScoredPrediction[], bins = 10): ReliabilityBin[] {
  const count = new Array<number>(bins).fill(0)
  const confidenceSum = new Array<number>(bins).fill(0)
  const correctSum = new Array<number>(bins).fill(0)
  for (const p of predictions) {
    const bin = Math.min(bins - 1, Math.floor(p.confidence * bins))
    count[bin]! += 1
    confidenceSum[bin]! += p.confidence
    if (p.label === goldLabel(p.rating)) correctSum[bin]! += 1
  }
  return count.map((n, b) => ({
    low: b / bins,
    high: (b + 1) / bins,
    count: n,
    meanConfidence: n === 0 ? 0 : confidenceSum[b]! / n,
    accuracy: n === 0 ? 0 : correctSum[b]! / n
  }))
}

/**
 * Expected calibration error: the gap between mean confidence and observed accuracy in each equal-width confidence
 * bin, weighted by the bin's share of the predictions.
 */
export function expectedCalibrationError (predictions: readonly ScoredPrediction[], bins = 10): number {
  if (predictions.length === 0) return 0
  return reliabilityBins(predictions, bins)
    .reduce((error, bin) => error + bin.count * Math.abs(bin.meanConfidence - bin.accuracy), 0) / predictions.length
}
