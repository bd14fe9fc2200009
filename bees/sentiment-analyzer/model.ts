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
import type { WordTable } from './word-table.js'

export type SentimentLabel = 'positive' | 'negative' | 'neutral'

export interface SentimentAnalysis { sentiment: SentimentLabel; confidence: number; score: number }

/** A word's weight, undefined for a word the model has none for: the shipped model's WordTable, or the tuner's Map. */
export interface WordWeights { get (word: string): number | undefined }

/** Logistic regression of "the human mean rating is positive", plus Platt scaling of its logit. */
export interface WordModel {
  /** Weights of denseFeatures(), in order. */
  dense: readonly number[]
  words: WordWeights
  /**
   * Each word's GloVe vector dotted with the fitted weights of the mean-vector
   * features. The weights act on the mean of the text's word vectors, so
   * their term in the logit is the mean of these numbers: one number per word
   * ships instead of a hundred.
   */
  vectors: WordWeights
  /**
   * The shipped model's unigrams in one table, so that a word's weight and its vector take one look-up instead of two:
   * by word, its vector (column VECTOR), its weight (PLAIN) and that of "~word" (NEGATED), NaN where it has none. Only
   * a speed-up: `words` and `vectors` answer the same for every feature. The tuner's Maps have none.
   */
  unigrams?: WordTable
  /** P(label right) = sigmoid(calibration · calibrationFeatures()): Platt scaling over what the text itself shows. */
  calibration: readonly number[]
}

/** WordModel.unigrams' columns. */
export const VECTOR = 0
export const PLAIN = 1
export const NEGATED = 2
export const UNIGRAM_COLUMNS = 3

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
  return isNegated(feature) ? { word: feature.slice(1), sign: -1 } : { word: feature, sign: 1 }
}

const isNegated = (feature: string): boolean => feature.charCodeAt(0) === 126 // ~

/**
 * What the learned model reads in a text: the logit of P(the human mean rating is positive), and how much its word
 * weights pull against each other. conflict is 2·min(for, against) / (for + against) over the word weights' sizes:
 * 0 when every weighted word leans one way, 1 when the two sides balance ("great food, awful service").
 */
export interface LearnedView {
  logit: number
  conflict: number
  /** Distinct words (not bigrams, not "!" or "?") the model learned a weight for: how much of the text it has seen before. */
  known: number
  /** Of those, the words whose weight is at least SENTIMENT_WEIGHT either way: the text's domain sentiment words ("soggy", "boring"). */
  weighty: number
}

/**
 * A learned word weight at least this large marks a word the reviews used to say how they felt ("boring" 0.28,
 * "predictable" 0.19, "great" 0.21); the words of code, logs and addresses ("from", "info", "select") stay below it.
 * Chosen with NO_SENTIMENT_WORD_SHARE on the tuning halves (docs/bees/quality.md).
 */
export const SENTIMENT_WEIGHT = 0.15

export function learnedView (signals: SentimentSignals, model: WordModel): LearnedView {
  const dense = denseFeatures(signals)
  let z = 0
  for (let i = 0; i < dense.length; i++) z += (model.dense[i] ?? 0) * dense[i]!
  let positive = 0
  let negative = 0
  let known = 0
  let weighty = 0
  let vectorSum = 0
  let vectorCount = 0
  const unigrams = model.unigrams
  for (const feature of signals.words) {
    // A bigram (it has a space) is no word the model knows by itself, and has no vector.
    const unigram = !feature.includes(' ')
    const negated = unigram && isNegated(feature)
    let learned: number | undefined
    let projected: number | undefined
    if (!unigram) {
      learned = model.words.get(feature)
    } else if (unigrams !== undefined) {
      const at = unigrams.indexOf(negated ? feature.slice(1) : feature)
      const weight = at === -1 ? NaN : unigrams.valueAt(at, negated ? NEGATED : PLAIN)
      const vector = at === -1 ? NaN : unigrams.valueAt(at, VECTOR)
      learned = Number.isNaN(weight) ? undefined : weight
      projected = Number.isNaN(vector) ? undefined : vector
    } else {
      learned = model.words.get(feature)
      projected = model.vectors.get(negated ? feature.slice(1) : feature)
    }
    const weight = learned ?? 0
    z += weight
    if (learned !== undefined && unigram && feature !== '!' && feature !== '?') {
      known += 1
      if (Math.abs(learned) >= SENTIMENT_WEIGHT) weighty += 1
    }
    if (weight > 0) positive += weight
    else negative -= weight
    if (projected === undefined) continue
    vectorSum += (negated ? -1 : 1) * projected
    vectorCount += 1
  }
  const logit = vectorCount === 0 ? z : z + vectorSum / vectorCount
  const weighed = positive + negative
  return { logit, conflict: weighed === 0 ? 0 : 2 * Math.min(positive, negative) / weighed, known, weighty }
}

/** Logit of P(the human mean rating is positive). */
export function positiveLogit (signals: SentimentSignals, model: WordModel): number {
  return learnedView(signals, model).logit
}

/**
 * Platt scaling's inputs, all read from the text, none naming where it came from (eval/tune-sentiment.ts chooses
 * which get a weight by leave-one-source-out calibration error): bias; the logit, each lexicon's score and the
 * conflict, in the label's direction; the text's length (log words), alone and with the logit; the social-media
 * cue, alone and with VADER's score; and VADER's emphasis cues ("!", words in capitals), which mark text that says
 * how it feels outright.
 */
/** What each of calibrationFeatures() is, in order. */
export const CALIBRATION_FEATURE_NAMES = [
  'bias', 'logit', 'VADER', 'wink-nlp', 'logit x log words', 'log words', 'conflict', 'logit x conflict', 'social cue', 'VADER x social cue',
  'emphasis'
] as const

export function calibrationFeatures (label: 'positive' | 'negative', signals: SentimentSignals, view: LearnedView): number[] {
  const sign = label === 'positive' ? 1 : -1
  const towards = sign * view.logit
  const vader = sign * signals.vader
  const logWords = Math.log1p(signals.wordCount)
  const social = signals.socialCues ? 1 : 0
  return [
    1, towards, vader, sign * signals.wink, towards * logWords, logWords, view.conflict, towards * view.conflict, social, vader * social,
    signals.emphasis
  ]
}

/**
 * Below this many known words, the confidence moves away from a coin toss only in proportion: "meh", a word the
 * model never learned, is no evidence, and one word ("Fine.") is thin evidence whatever the calibration sets say. A
 * prior, not fitted: the sets have few such texts and almost none without a known word. Its cost on them is in the
 * leave-one-source-out figures, which apply it.
 */
export const KNOWN_WORDS_FOR_FULL_CONFIDENCE = 2

/**
 * Text with no sentiment word at all, neither one VADER's lexicon knows nor one the model weighs at SENTIMENT_WEIGHT
 * or more, keeps this share of its calibrated distance from 1/2. Such text is what code, logs, addresses and tables
 * look like ("SELECT name FROM users WHERE id = 1"), where the learned view's lean comes from the average word vector
 * and the bias, not from anything a person meant. A prior, not fitted: the labelled sources have few such texts
 * (1-8% of each one's polar labels, right 61-94% of the time); it is the strongest setting under which no source's
 * leave-one-source-out error rose by more than 0.01 on the tuning halves.
 */
export const NO_SENTIMENT_WORD_SHARE = 0.5

/** How far, from 0 to 1, the evidence lets the calibrated probability move away from 1/2 (the tuner checks the prior by varying it). */
export function evidenceShare (signals: Pick<SentimentSignals, 'sentimentTokens'>, view: LearnedView, noSentimentWordShare = NO_SENTIMENT_WORD_SHARE): number {
  const seen = Math.min(1, view.known / KNOWN_WORDS_FOR_FULL_CONFIDENCE)
  return signals.sentimentTokens + view.weighty === 0 ? seen * noSentimentWordShare : seen
}

/** The label's calibrated probability (Platt scaling), tempered by evidenceShare(). */
export function temperedConfidence (calibration: readonly number[], features: readonly number[], share: number): number {
  let z = 0
  for (let i = 0; i < features.length; i++) z += (calibration[i] ?? 0) * features[i]!
  return 0.5 + (1 / (1 + Math.exp(-z)) - 0.5) * share
}

export function predict (signals: SentimentSignals, model: SentimentModel): SentimentAnalysis {
  const view = learnedView(signals, model.learned)
  const score = blendScore(signals, view.logit, model)
  const sentiment = labelFor(score)
  const confidence = sentiment === 'neutral'
    ? model.neutralConfidence
    : temperedConfidence(model.learned.calibration, calibrationFeatures(sentiment, signals, view), evidenceShare(signals, view))
  return { sentiment, confidence, score }
}
