// The sentiment-analyzer Bee's pure core: English text in, label + signed score
// + calibrated confidence out. Synchronous, deterministic and offline.
import { extractSignals } from './signals.js'
import { predict, type SentimentAnalysis, type SentimentModel } from './model.js'
import { fromFile } from './model-file.js'
import modelFile from './sentiment-model.json' with { type: 'json' }
import { SENTIMENT_MAX_CHARS } from './about.js'

export type { SentimentAnalysis, SentimentLabel } from './model.js'
export { SENTIMENT_MAX_CHARS, SENTIMENT_PROVIDER } from './about.js'

/**
 * Fitted on the tuning halves of the four VADER ground-truth sets (the
 * calibration also on those of the three UCI sets, eval/uci-sets.ts) by
 * eval/tune-sentiment.ts, which rewrites sentiment-model.json with --write and
 * otherwise fails if the file differs from what it fits; never edit it by hand.
 */
export const TUNED_SENTIMENT_MODEL: SentimentModel = fromFile(modelFile)

/**
 * score: polarity in [-1, 1], the lexicons' score moved towards the learned
 * model's view (see model.ts); the label is its sign. confidence: calibrated
 * probability that the label matches the sign of a human mean rating (the
 * VADER paper's gold, where only an exact 0 is neutral); so a neutral label,
 * given when there is too little English sentiment evidence, always comes with
 * a low confidence.
 */
export function analyzeSentiment (text: string): SentimentAnalysis {
  if (text.length > SENTIMENT_MAX_CHARS) {
    throw new RangeError(`text is ${text.length} characters; the limit is ${SENTIMENT_MAX_CHARS}`)
  }
  return predict(extractSignals(text), TUNED_SENTIMENT_MODEL)
}
