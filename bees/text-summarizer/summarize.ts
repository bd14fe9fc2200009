import { centrality } from './centrality.js'
import { splitSentences, type Span } from './sentences.js'
import { termRows } from './term-rows.js'
import { countWords, firstWords } from './words.js'

/**
 * - `summary`: the most central sentences that fit in the word budget, each copied verbatim from the text, in the
 *   text's order, joined by one space. A line that ends without punctuation (a title, a heading, a line of a list: the
 *   text ended it with a line break) is left out when the text has punctuated sentences; in a text made of such lines
 *   each one is followed by a line break, so it does not run into the next one.
 *   When the whole text fits, it is the whole text, trimmed, with its own spacing.
 *   When not even one sentence fits, it is the first `maxWords` words of the most central sentence (still verbatim).
 * - `keyPoints`: up to five most central sentences, most central first, verbatim; one longer than `maxWords` words
 *   is cut to its first `maxWords` words, like the summary.
 * - `confidence`: the share of the text's centrality (its PageRank mass) that the summary covers, in [0, 1]; 1 when
 *   the whole text fits, less the more central sentences had to be left out.
 */
export interface Summary { summary: string, keyPoints: string[], confidence: number }

export const SUMMARIZER_PROVIDER = 'apiary TextRank (extractive)'
/**
 * The longest text the HTTP layer accepts. The summarizer itself takes time linear in the text's length: about 0.2 s
 * for a megabyte of prose, up to 0.6 s for degenerate shapes such as 300,000 one-word sentences.
 */
export const SUMMARY_MAX_CHARS = 1_000_000
export const DEFAULT_MAX_WORDS = 150
const KEY_POINTS = 5
// Centralities closer than this (relative to the average) are ties, so floating-point noise cannot reorder them.
const TIE = 1e-9
/** Chosen sentences compared one by one, up to this many; in a Set past it (a text of many repeated short lines). */
const SCANNED = 16
const WORD_CHARACTER = /[\p{L}\p{N}]/u
const ENDS_IN_WORD = /[\p{L}\p{N}\p{M}]$/u
/** sentences.ts's second kind of boundary, which needs no white space after it. */
const FULL_WIDTH_TERMINATOR = /[。！？．｡]/

/**
 * Extractive summary of `text` in at most `maxWords` words (a positive integer; words are white-space separated).
 * Deterministic: equally central sentences are taken in text order. Text with no letters or digits gives an empty
 * summary, no key points and confidence 0.
 */
export function summarize (text: string, maxWords: number = DEFAULT_MAX_WORDS): Summary {
  if (!Number.isSafeInteger(maxWords) || maxWords < 1) throw new RangeError(`maxWords must be a positive integer, got ${maxWords}`)
  const spans: Span[] = []
  const sentences: string[] = []
  for (const span of splitSentences(text)) {
    const sentence = text.slice(span.start, span.end)
    if (!hasWordCharacter(sentence)) continue
    spans.push(span)
    sentences.push(sentence)
  }
  if (sentences.length === 0) return { summary: '', keyPoints: [], confidence: 0 }

  // One sentence is the whole graph: all the centrality is its own (what centrality computes), its terms unneeded.
  const rows = sentences.length === 1 ? null : termRows(text, spans)
  const scores = rows === null ? [1] : centrality(rows)
  const counted = rows === null ? Int32Array.of(countWords(sentences[0] ?? '')) : rows.words
  const wordsOf = (i: number): number => counted[i] ?? 0
  const ranked = rankOrder(scores)
  // A sentence within the budget is its own first maxWords words.
  const keyPoints = mostCentral(sentences, ranked, KEY_POINTS).map(i => wordsOf(i) <= maxWords ? sentences[i] ?? '' : firstWords(sentences[i] ?? '', maxWords))

  if (!moreWordsThan(text, counted, maxWords)) return { summary: text.trim(), keyPoints, confidence: 1 }

  const candidates = summaryCandidates(sentences, ranked)
  const chosen: number[] = []
  // Filled only once more than SCANNED sentences are chosen; until then they are compared one by one.
  let seen: Set<string> | undefined
  let budget = maxWords
  for (const i of candidates) {
    const sentence = sentences[i] ?? ''
    if (seen === undefined ? isOneOf(sentence, sentences, chosen) : seen.has(sentence)) continue
    const words = wordsOf(i)
    if (words > budget) continue
    chosen.push(i)
    if (seen !== undefined) seen.add(sentence)
    else if (chosen.length > SCANNED) seen = new Set(chosen.map(j => sentences[j] ?? ''))
    budget -= words
    if (budget === 0) break
  }

  if (chosen.length === 0) {
    const best = candidates[0] ?? 0
    const sentence = sentences[best] ?? ''
    return { summary: firstWords(sentence, maxWords), keyPoints, confidence: (scores[best] ?? 0) * maxWords / wordsOf(best) }
  }
  chosen.sort((a, b) => a - b)
  return {
    summary: joinSentences(chosen.map(i => sentences[i] ?? '')),
    keyPoints,
    confidence: Math.min(1, chosen.reduce((sum, i) => sum + (scores[i] ?? 0), 0))
  }
}

/**
 * Whether `text` has more than `limit` words. Every word of the text is in one sentence, unless a full-width terminator
 * ("。") ends a sentence inside one (it needs no space after it), and some sentences (no letter or digit) were left out:
 * so more words in the sentences than the limit settles it, without counting the text again.
 */
function moreWordsThan (text: string, sentenceWords: Int32Array, limit: number): boolean {
  let words = 0
  for (const count of sentenceWords) words += count
  if (words > limit && !FULL_WIDTH_TERMINATOR.test(text)) return true
  return countWords(text, limit) > limit
}

/** One space between sentences, or a line break after one that ends without punctuation, as the text had it. */
function joinSentences (sentences: readonly string[]): string {
  let joined = ''
  let separator = ''
  for (const sentence of sentences) {
    joined += separator + sentence
    separator = endsInWord(sentence) ? '\n' : ' '
  }
  return joined
}

/**
 * The ranked sentences the summary may take. A line without closing punctuation (a title, a heading) names the topic
 * rather than saying something about it, so it is left out when the text has punctuated sentences; text made only of
 * such lines (a list) is summarized from them. On the tuning part of the news set, leaving out the headline gained 0.6
 * to 0.9 points of ROUGE-1/2/L at 150 words: no reference extract contains it.
 */
function summaryCandidates (sentences: readonly string[], ranked: readonly number[]): readonly number[] {
  const punctuated = ranked.filter(i => !endsInWord(sentences[i] ?? ''))
  return punctuated.length > 0 ? punctuated : ranked
}

/** Whether the sentence ends in a letter, digit or mark (ENDS_IN_WORD): by hand when its last code unit is ASCII. */
function endsInWord (sentence: string): boolean {
  const last = sentence.charCodeAt(sentence.length - 1)
  if (last < 128) return (last >= 48 && last <= 57) || ((last | 32) >= 97 && (last | 32) <= 122)
  // The last two code units hold the last character even when it is a surrogate pair.
  return ENDS_IN_WORD.test(sentence.slice(-2))
}

/** Sentence indices, most central first; near-equal centralities keep text order. */
function rankOrder (scores: readonly number[]): number[] {
  const n = scores.length
  const keys: number[] = []
  const order: number[] = []
  for (let i = 0; i < n; i++) {
    keys.push(Math.round(scores[i]! * n / TIE))
    order.push(i)
  }
  return order.sort((a, b) => keys[b]! - keys[a]! || a - b)
}

/** The indices of up to `limit` (a few) most central sentences, one for each distinct sentence. */
function mostCentral (sentences: readonly string[], ranked: readonly number[], limit: number): number[] {
  const indices: number[] = []
  for (const i of ranked) {
    if (indices.length === limit) break
    if (!isOneOf(sentences[i] ?? '', sentences, indices)) indices.push(i)
  }
  return indices
}

/**
 * Whether `sentence` is one of sentences[i] for i in `indices`. One by one: a Set hashed every whole sentence it was
 * asked about, about 2 µs of a 276-word article's summary; comparing two sentences mostly stops at their lengths.
 */
function isOneOf (sentence: string, sentences: readonly string[], indices: readonly number[]): boolean {
  for (const i of indices) if (sentences[i] === sentence) return true
  return false
}

/** WORD_CHARACTER.test(sentence): by hand when its first code unit is an ASCII letter or digit, as most are. */
function hasWordCharacter (sentence: string): boolean {
  const first = sentence.charCodeAt(0)
  if ((first >= 48 && first <= 57) || ((first | 32) >= 97 && (first | 32) <= 122)) return true
  return WORD_CHARACTER.test(sentence)
}
