// How signals become a label, a score and a calibrated confidence. The numbers
// live in a SentimentModel so that eval/tune-sentiment.ts can search them and
// analyze.ts can pin the chosen ones.
import type { SentimentSignals } from './signals.js'

export type SentimentLabel = 'positive' | 'negative' | 'neutral'

export interface SentimentAnalysis { sentiment: SentimentLabel; confidence: number; score: number }

/** Logistic model of P(polar label is right) given the evidence behind it. */
export interface ConfidenceCalibration {
  intercept: number
  magnitude: number
  agreement: number
  socialCues: number
  logWords: number
}

export interface SentimentModel {
  /** Weight of VADER in the blend; wink-nlp gets the rest. */
  vaderWeight: number
  /** |score| below this is labelled neutral. */
  neutralBand: number
  calibration: ConfidenceCalibration
  /** Observed rate at which a neutral label is right (gold rating exactly 0). */
  neutralConfidence: number
}

export function blendScore (signals: SentimentSignals, vaderWeight: number): number {
  if (signals.nonEnglish) return 0
  const blended = vaderWeight * signals.vader + (1 - vaderWeight) * signals.wink
  return Math.max(-1, Math.min(1, blended))
}

export function labelFor (score: number, neutralBand: number): SentimentLabel {
  if (score === 0 || Math.abs(score) < neutralBand) return 'neutral'
  return score > 0 ? 'positive' : 'negative'
}

/** Inputs of the calibration, in ConfidenceCalibration's field order after the intercept. */
export function calibrationFeatures (signals: SentimentSignals, score: number): [number, number, number, number] {
  const bothAgree = signals.vader * signals.wink > 0 ? 1 : 0
  return [Math.abs(score), bothAgree, signals.socialCues ? 1 : 0, Math.log1p(signals.wordCount)]
}

export function polarConfidence (features: readonly number[], c: ConfidenceCalibration): number {
  const [magnitude = 0, agreement = 0, social = 0, logWords = 0] = features
  const z = c.intercept + c.magnitude * magnitude + c.agreement * agreement + c.socialCues * social + c.logWords * logWords
  return 1 / (1 + Math.exp(-z))
}

export function predict (signals: SentimentSignals, model: SentimentModel): SentimentAnalysis {
  const score = blendScore(signals, model.vaderWeight)
  const sentiment = labelFor(score, model.neutralBand)
  const confidence = sentiment === 'neutral'
    ? model.neutralConfidence
    : polarConfidence(calibrationFeatures(signals, score), model.calibration)
  return { sentiment, confidence, score }
}
