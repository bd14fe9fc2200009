// The sentiment-analyzer Bee's pure core: English text in, label + signed score
// + calibrated confidence out. Synchronous, deterministic and offline.
import { readFileSync } from 'node:fs'
import { extractSignals } from './signals.js'
import { predict, type SentimentAnalysis, type SentimentModel } from './model.js'
import { fromFile, type SentimentModelFile } from './model-file.js'
import { SENTIMENT_MAX_CHARS } from './about.js'

export type { SentimentAnalysis, SentimentLabel } from './model.js'
export { SENTIMENT_MAX_CHARS, SENTIMENT_PROVIDER } from './about.js'

/**
 * Read, not imported: a JSON module (or the object literal the bundle would make of it) stays on the heap for the
 * process's life, 130,000 strings and their numbers, beside the word tables built from it. scripts/bundle.mjs puts a
 * copy next to the bundle's chunk that holds this module.
 */
const MODEL_FILE = new URL('./sentiment-model.json', import.meta.url)

/**
 * Fitted on the tuning halves of the four VADER ground-truth sets (the
 * calibration also on those of the three UCI sets, eval/uci-sets.ts) by
 * eval/tune-sentiment.ts, which rewrites sentiment-model.json with --write and
 * otherwise fails if the file differs from what it fits; never edit it by hand.
 */
export const TUNED_SENTIMENT_MODEL: SentimentModel = fromFile(JSON.parse(readFileSync(MODEL_FILE, 'utf8')) as SentimentModelFile)

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
