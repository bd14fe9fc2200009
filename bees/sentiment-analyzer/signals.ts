// Raw evidence about one text: the two libraries' polarity scores plus the
// surface and word features the confidence model uses. No tuned constants here.
import { looksNonEnglish } from './language.js'
import { hasSocialCues } from './social-cues.js'
import { vaderScore } from './vader-compound.js'
import { winkSentiment } from './wink-sentiment.js'
import { distinctWordFeatures } from './word-features.js'

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
  const decoded = text.includes('&')
    ? text
      .replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => HTML_ENTITIES[name] ?? '')
      .replace(/&#(\d{1,6});/g, (_, code: string) => safeCodePoint(Number(code)))
    : text
  return decoded.replace(/\b(?:https?:\/\/|www\.)\S+/gi, ' ')
}

function safeCodePoint (code: number): string {
  return code <= 0x10ffff ? String.fromCodePoint(code) : ' '
}

export function extractSignals (text: string): SentimentSignals {
  const clean = normalizeText(text)
  const { features, hasLetters } = distinctWordFeatures(clean)
  const vader = vaderScore(clean)
  return {
    vader: vader.compound,
    sentimentTokens: vader.sentimentTokens,
    emphasis: vader.emphasis,
    wink: winkSentiment(clean),
    socialCues: hasSocialCues(clean),
    wordCount: vader.words,
    nonEnglish: looksNonEnglish(clean),
    words: features,
    hasWords: hasLetters
  }
}
