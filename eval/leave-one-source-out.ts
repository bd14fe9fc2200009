// Calibration across sources, and how well it transfers: Platt scaling fitted on several labelled sources with every
// source weighing the same, and the leave-one-source-out check of it, where each source's confidence comes from a
// calibration fitted on the other sources only. The tuner chooses the calibration's features by it; the evaluation
// reports it.
import type { LearnedView } from '../bees/sentiment-analyzer/model.js'
import { CALIBRATION_FEATURE_NAMES, calibrationFeatures, evidenceShare, labelFor, temperedConfidence } from '../bees/sentiment-analyzer/model.js'
import type { SentimentSignals } from '../bees/sentiment-analyzer/signals.js'
import { fitLogistic } from './newton-logistic.js'
import {
  expectedCalibrationError, goldLabel, reliabilityBins, type ReliabilityBin, type ScoredPrediction
} from './sentiment-metrics.js'

/** One labelled text as the calibration sees it: its gold rating, the shipped score, the calibration's inputs and evidenceShare(). */
export interface CalibrationCase { rating: number; score: number; features: number[]; share: number }

export interface SourceCases { source: string; cases: CalibrationCase[] }

export function calibrationCase (rating: number, score: number, signals: SentimentSignals, view: LearnedView, noSentimentWordShare?: number): CalibrationCase {
  const label = labelFor(score)
  return { rating, score, features: label === 'neutral' ? [] : calibrationFeatures(label, signals, view), share: evidenceShare(signals, view, noSentimentWordShare) }
}

/** A calibration: Platt weights over calibrationFeatures() (0 for a feature left out) and a neutral label's confidence. */
export interface Calibration { weights: number[]; neutralConfidence: number }

/**
 * Platt scaling on the polar cases of these sources, over the features whose indexes are given, each source's cases
 * weighing 1 in all; and a neutral label's confidence: the mean, over the sources that have neutral labels, of how
 * often one is right.
 */
export function fitCalibration (sources: readonly SourceCases[], features: readonly number[]): Calibration {
  const data = sources.flatMap(({ cases }) => {
    const polar = cases.filter(c => labelFor(c.score) !== 'neutral')
    return polar.map(c => ({
      features: features.map(i => c.features[i]!),
      correct: labelFor(c.score) === goldLabel(c.rating) ? 1 : 0,
      weight: 1 / polar.length
    }))
  })
  const fitted = fitLogistic(data)
  const weights = new Array<number>(CALIBRATION_FEATURE_NAMES.length).fill(0)
  features.forEach((i, k) => { weights[i] = fitted[k]! })
  const rates = sources.flatMap(({ cases }) => {
    const neutral = cases.filter(c => labelFor(c.score) === 'neutral')
    return neutral.length === 0 ? [] : [neutral.filter(c => goldLabel(c.rating) === 'neutral').length / neutral.length]
  })
  return { weights, neutralConfidence: rates.length === 0 ? 0 : rates.reduce((a, b) => a + b, 0) / rates.length }
}

/** The cases as predictions with the calibration's confidence. */
export function calibrate (cases: readonly CalibrationCase[], calibration: Calibration): ScoredPrediction[] {
  return cases.map(c => {
    const label = labelFor(c.score)
    const confidence = label === 'neutral'
      ? calibration.neutralConfidence
      : temperedConfidence(calibration.weights, c.features, c.share)
    return { rating: c.rating, label, confidence, score: c.score }
  })
}

export interface TransferRow { source: string; items: number; calibrationError: number; reliability: ReliabilityBin[] }

/** Each source's calibration error under a calibration fitted on the other sources only. */
export function leaveOneSourceOut (sources: readonly SourceCases[], features: readonly number[]): TransferRow[] {
  return sources.map(left => {
    const calibration = fitCalibration(sources.filter(other => other !== left), features)
    const predictions = calibrate(left.cases, calibration)
    return {
      source: left.source,
      items: predictions.length,
      calibrationError: expectedCalibrationError(predictions),
      reliability: reliabilityBins(predictions)
    }
  })
}

export const worstError = (rows: readonly TransferRow[]): number => Math.max(...rows.map(row => row.calibrationError))
