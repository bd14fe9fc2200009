// Raw evidence about one text: the two libraries' polarity scores plus the
// surface and word features the confidence model uses. No tuned constants here.
import winkNLP from 'wink-nlp'
import model from 'wink-eng-lite-web-model'
import { looksNonEnglish } from './language.js'
import { hasSocialCues } from './social-cues.js'
import { vaderScore } from './vader-compound.js'
import { wordFeatures } from './word-features.js'

// Loading the model is slow; do it once. Only the annotations the sentiment
// score depends on are run: two to three times faster than the default pipe,
// with identical scores.
const nlp = winkNLP(model, ['sbd', 'negation', 'sentiment'])
const its = nlp.its

export interface SentimentSignals {
  /** VADER compound score in [-1, 1]. */
  vader: number
  /** Tokens VADER's lexicon gives a valence ("good", "free", ":)", "kill"): the text's general sentiment vocabulary. */
  sentimentTokens: number
  /** VADER's emphasis on the sentiment words: "!" and sentiment words in capitals amid lower case, up to 3 of each (vader-compound.ts). */
  emphasis: number
  /** wink-nlp document sentiment in [-1, 1]. */
  wink: number
  /** Emoticons, hashtags, mentions, "lol", "!!", stretched words: social-media register. */
  socialCues: boolean
  wordCount: number
  nonEnglish: boolean
  /** Distinct word features (see word-features.ts). */
  words: readonly string[]
  /** Whether any word feature has a letter: "!!!" and "12345" have none for the learned model to read. */
  hasWords: boolean
}

const HTML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

// Scraped text arrives HTML-escaped ("&lt;3" is VADER's heart emoticon), and
// URLs only contribute noise: wink scores tokens inside them ("url_removed"
// reads as negative).
export function normalizeText (text: string): string {
  return text
    .replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => HTML_ENTITIES[name] ?? '')
    .replace(/&#(\d{1,6});/g, (_, code: string) => safeCodePoint(Number(code)))
    .replace(/\b(?:https?:\/\/|www\.)\S+/gi, ' ')
}

function safeCodePoint (code: number): string {
  return code <= 0x10ffff ? String.fromCodePoint(code) : ' '
}

// wink's tokenizer takes time quadratic in the length of a run without white
// space: 20,000 "#" or "a-" took a second. No word is this long, and none of
// the 23,703 ground-truth texts has such a run, so breaking runs up changes no
// score a person would write.
const LONG_RUN = /\S{64}(?=\S)/g

export function breakLongRuns (text: string): string {
  return text.replace(LONG_RUN, '$& ')
}

const LETTER = /\p{L}/u

export function extractSignals (text: string): SentimentSignals {
  const clean = normalizeText(text)
  const words = [...new Set(wordFeatures(clean))]
  const vader = vaderScore(clean)
  return {
    vader: vader.compound,
    sentimentTokens: vader.sentimentTokens,
    emphasis: vader.emphasis,
    // wink's typings widen every out() to string | T; for its.sentiment it is a number.
    wink: Number(nlp.readDoc(breakLongRuns(clean)).out(its.sentiment)),
    socialCues: hasSocialCues(clean),
    wordCount: countWords(clean),
    nonEnglish: looksNonEnglish(clean),
    words,
    hasWords: words.some(word => LETTER.test(word))
  }
}

function countWords (text: string): number {
  return text.match(/\S+/g)?.length ?? 0
}
