// How signals become a label, a score and a calibrated confidence. The numbers
// live in a SentimentModel, fitted by eval/tune-sentiment.ts and shipped as
// sentiment-model.json.
//
// Two views of a text are blended. The lexicons (VADER and wink-nlp) know the
// polarity of words in general and keep tweets, their home register, right.
// A logistic regression over the lexicon scores, a few register cues, word
// unigrams/bigrams and the text's mean GloVe word vector learns which wordings
// the lexicons misread (irony, "not bad", domain words such as "predictable");
// the word vectors carry what it learns to words the tuning texts never used.
// The score is the lexicons' score moved towards the learned view by a share
// that depends on the register; the label is the score's sign. The confidence
// is the learned model's probability for that label, recalibrated.
import type { SentimentSignals } from './signals.js'

export type SentimentLabel = 'positive' | 'negative' | 'neutral'

export interface SentimentAnalysis { sentiment: SentimentLabel; confidence: number; score: number }

/** Logistic regression of "the human mean rating is positive", plus Platt scaling of its logit. */
export interface WordModel {
  /** Weights of denseFeatures(), in order. */
  dense: readonly number[]
  words: ReadonlyMap<string, number>
  /**
   * Each word's GloVe vector dotted with the fitted weights of the mean-vector
   * features. The weights act on the mean of the text's word vectors, so
   * their term in the logit is the mean of these numbers: one number per word
   * ships instead of a hundred.
   */
  vectors: ReadonlyMap<string, number>
  /** P(label right) = sigmoid(calibration · calibrationFeatures()): Platt scaling, by register. */
  calibration: readonly number[]
}

/**
 * Logistic regression of "this text is in the register of social media" (a tweet, against a review or editorial
 * sentence), over registerFeatures() and word unigrams. Only the confidence uses it: at the same logit, a label on a
 * tweet is right far more often than one on a review sentence, and half of the tweets carry no social-media cue.
 */
export interface RegisterModel {
  dense: readonly number[]
  words: ReadonlyMap<string, number>
}

/** How the lexicon score and the learned view make the score and the label. */
export interface ScoreBlend {
  /** Weight of VADER in the lexicon score; wink-nlp gets the rest. */
  vaderWeight: number
  /** Share of the learned view in the score of text without social-media cues. */
  learnedShare: number
  /** The same for text with them (tweets), where the lexicons are at their best. */
  learnedShareSocial: number
  /** The learned view is tanh(learnedScale · logit): the logit mapped onto the lexicons' [-1, 1]. */
  learnedScale: number
  /**
   * Text in which neither lexicon finds sentiment is neutral unless it has
   * words and the learned view is at least this strong: a plain statement of
   * fact stays neutral, a "predictable plot" does not.
   */
  silentThreshold: number
}

export interface SentimentModel extends ScoreBlend {
  /** Observed rate at which a neutral label is right (gold rating exactly 0). */
  neutralConfidence: number
  learned: WordModel
  register: RegisterModel
}

/** The lexicons' polarity in [-1, 1]; 0 for text that is not English. */
function lexiconScore (signals: SentimentSignals, vaderWeight: number): number {
  if (signals.nonEnglish) return 0
  const blended = vaderWeight * signals.vader + (1 - vaderWeight) * signals.wink
  return Math.max(-1, Math.min(1, blended))
}

export function labelFor (score: number): SentimentLabel {
  if (score === 0) return 'neutral'
  return score > 0 ? 'positive' : 'negative'
}

/** The score, in [-1, 1], given the learned model's logit; 0 (a neutral label) when there is not enough evidence. */
export function blendScore (signals: SentimentSignals, logit: number, blend: ScoreBlend): number {
  if (signals.nonEnglish) return 0
  const lexicon = lexiconScore(signals, blend.vaderWeight)
  const learned = Math.tanh(blend.learnedScale * logit)
  if (lexicon === 0 && (!signals.hasWords || Math.abs(learned) < blend.silentThreshold)) return 0
  const share = signals.socialCues ? blend.learnedShareSocial : blend.learnedShare
  return (1 - share) * lexicon + share * learned
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

/**
 * The word of a unigram feature that has a word vector, and the sign its
 * vector enters the mean with: a negated word ("~good") counts against its
 * vector. Bigrams have no vector.
 */
export function vectorKey (feature: string): { word: string; sign: 1 | -1 } | undefined {
  if (feature.includes(' ')) return undefined
  return feature.startsWith('~') ? { word: feature.slice(1), sign: -1 } : { word: feature, sign: 1 }
}

/** Logit of P(the human mean rating is positive). */
export function positiveLogit (signals: SentimentSignals, model: WordModel): number {
  const dense = denseFeatures(signals)
  let z = 0
  for (let i = 0; i < dense.length; i++) z += (model.dense[i] ?? 0) * dense[i]!
  let vectorSum = 0
  let vectorCount = 0
  for (const feature of signals.words) {
    z += model.words.get(feature) ?? 0
    const key = vectorKey(feature)
    const projected = key === undefined ? undefined : model.vectors.get(key.word)
    if (projected === undefined) continue
    vectorSum += key!.sign * projected
    vectorCount += 1
  }
  return vectorCount === 0 ? z : z + vectorSum / vectorCount
}

/** The register model's non-word inputs: bias, the social-media cue, an open end and the text's length. */
export function registerFeatures (signals: SentimentSignals): number[] {
  return [1, signals.socialCues ? 1 : 0, signals.openEnd ? 1 : 0, Math.log1p(signals.wordCount)]
}

/** P(the text is in the register of social media). */
export function registerProbability (signals: SentimentSignals, model: RegisterModel): number {
  const dense = registerFeatures(signals)
  let z = 0
  for (let i = 0; i < dense.length; i++) z += (model.dense[i] ?? 0) * dense[i]!
  for (const feature of signals.words) z += model.words.get(feature) ?? 0
  return 1 / (1 + Math.exp(-z))
}

/**
 * Platt scaling's inputs: the logit in the label's direction, and the same interacted with the probability that the
 * text is social media. With the social-media cue in its place, tweets without a cue were under-confident (accuracy
 * 0.92-0.96 at confidence 0.45-0.85) and the expected calibration error on tweets was 0.067 out of fold; with the
 * register model, 0.040.
 */
export function calibrationFeatures (towardsLabel: number, register: number): number[] {
  return [1, towardsLabel, towardsLabel * register, register]
}

export function labelConfidence (label: 'positive' | 'negative', logit: number, register: number, model: WordModel): number {
  const features = calibrationFeatures(label === 'positive' ? logit : -logit, register)
  let z = 0
  for (let i = 0; i < features.length; i++) z += (model.calibration[i] ?? 0) * features[i]!
  return 1 / (1 + Math.exp(-z))
}

export function predict (signals: SentimentSignals, model: SentimentModel): SentimentAnalysis {
  const logit = positiveLogit(signals, model.learned)
  const score = blendScore(signals, logit, model)
  const sentiment = labelFor(score)
  const confidence = sentiment === 'neutral'
    ? model.neutralConfidence
    : labelConfidence(sentiment, logit, registerProbability(signals, model.register), model.learned)
  return { sentiment, confidence, score }
}
