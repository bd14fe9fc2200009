// How signals become a label, a score and a calibrated confidence. The numbers
// live in a SentimentModel, fitted by eval/tune-sentiment.ts and shipped as
// sentiment-model.json.
//
// The label and score come from the two lexicons (VADER and wink-nlp): that
// keeps the published-F1 and Pearson-r behaviour on every register. The
// confidence comes from a logistic regression over the lexicon scores, a few
// register cues and word unigrams/bigrams: it learns which wordings the
// lexicons misread (irony, "not bad", domain words such as "predictable"), so
// it can rank a lexicon label that is probably wrong below one that is not.
import type { SentimentSignals } from './signals.js'

export type SentimentLabel = 'positive' | 'negative' | 'neutral'

export interface SentimentAnalysis { sentiment: SentimentLabel; confidence: number; score: number }

/** Logistic regression of "the human mean rating is positive", plus Platt scaling of its logit. */
export interface WordModel {
  /** Weights of denseFeatures(), in order. */
  dense: readonly number[]
  words: ReadonlyMap<string, number>
  /** P(label right) = sigmoid(shift + scale * logit in the label's direction). */
  scale: number
  shift: number
}

export interface SentimentModel {
  /** Weight of VADER in the blend; wink-nlp gets the rest. */
  vaderWeight: number
  /** |score| below this is labelled neutral. */
  neutralBand: number
  /** Observed rate at which a neutral label is right (gold rating exactly 0). */
  neutralConfidence: number
  confidence: WordModel
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

/**
 * The non-word inputs: bias, each lexicon's score, and the same scores
 * interacted with the social-media cue and with text length, because how far
 * a lexicon can be trusted depends on the register (VADER was built for
 * tweets) and on how much text it saw.
 */
export function denseFeatures (signals: SentimentSignals): number[] {
  const social = signals.socialCues ? 1 : 0
  const logWords = Math.log1p(signals.wordCount)
  return [1, signals.vader, signals.wink, social, signals.vader * social, signals.wink * social,
    signals.vader * logWords, signals.wink * logWords]
}

/** Logit of P(the human mean rating is positive). */
export function positiveLogit (signals: SentimentSignals, model: WordModel): number {
  const dense = denseFeatures(signals)
  let z = 0
  for (let i = 0; i < dense.length; i++) z += (model.dense[i] ?? 0) * dense[i]!
  for (const word of signals.words) z += model.words.get(word) ?? 0
  return z
}

export function labelConfidence (label: 'positive' | 'negative', logit: number, model: WordModel): number {
  const towardsLabel = label === 'positive' ? logit : -logit
  return 1 / (1 + Math.exp(-(model.shift + model.scale * towardsLabel)))
}

export function predict (signals: SentimentSignals, model: SentimentModel): SentimentAnalysis {
  const score = blendScore(signals, model.vaderWeight)
  const sentiment = labelFor(score, model.neutralBand)
  const confidence = sentiment === 'neutral'
    ? model.neutralConfidence
    : labelConfidence(sentiment, positiveLogit(signals, model.confidence), model.confidence)
  return { sentiment, confidence, score }
}
