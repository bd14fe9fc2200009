import { isWhiteSpaceAt } from '../white-space.js'
import { STOP_WORDS } from './stop-words.js'

/** A sentence as offsets into the text: `text.slice(start, end)` is the sentence, trimmed of white space. */
export interface Span { start: number, end: number }

/*
 * A single left-to-right regex pass, so splitting stays linear in the text length. Intl.Segmenter was the first
 * choice, but on Node 20 its sentence iterator is quadratic (about 3 s for 300 kB, 30 s for 1 MB), and it still
 * breaks after "Mr." and inside '"Is that so?" she asked.'.
 *
 * A candidate boundary is one of:
 * - a run of sentence-final punctuation, then closing quotes or brackets, then white space or the end of the text
 *   (so "3.14", "example.com" and "end.Next" are never split);
 * - a run of full-width CJK terminators, which need no white space after them;
 * - one or more line breaks.
 * A candidate followed by a lower-case letter does not end the sentence, except at a blank line; so hard-wrapped prose
 * stays whole while unpunctuated lines ("Shopping list", headings) are sentences of their own. A lone period also
 * does not end one after a known abbreviation, with the exceptions below.
 */
const BOUNDARY = /[.!?…‼⁇⁈⁉؟۔।॥።]+[\p{Pe}\p{Pf}"']*(?=\s|$)|[。！？．｡]+[\p{Pe}\p{Pf}"']*|\n(?:[^\S\n]*\n)*/gu

/** Abbreviations that precede a name or a number and so do not end a sentence, whatever follows. */
const ALWAYS_ABBREVIATIONS: ReadonlySet<string> = new Set([
  'mr', 'mrs', 'ms', 'mx', 'dr', 'prof', 'rev', 'hon', 'gen', 'col', 'lt', 'sgt', 'capt', 'cmdr', 'adm', 'gov', 'sen',
  'rep', 'pres', 'messrs', 'mme', 'mlle', 'vs', 'cf', 'viz', 'approx', 'fig', 'figs', 'eq', 'e.g', 'i.e',
  'bzw', 'vgl', 'ggf', 'ca'
])

/**
 * Abbreviations that may also end a sentence ("He works at Acme Inc. The firm ..."). Like single initials ("J. R.
 * Tolkien", "Plan B.") and dotted initialisms ("U.S."), they end the sentence only when the next word is an English
 * function word such as "The" or "He".
 */
const AMBIGUOUS_ABBREVIATIONS: ReadonlySet<string> = new Set([
  'jr', 'sr', 'st', 'mt', 'ft', 'inc', 'ltd', 'co', 'corp', 'llc', 'plc', 'bros', 'etc', 'al', 'no', 'nos', 'vol',
  'vols', 'pp', 'jan', 'feb', 'apr', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'ave', 'blvd', 'dept', 'est',
  'mio', 'mrd', 'nr', 'str', 'tel'
])

const INITIALISM = /^(?:\p{L}\.)*\p{L}$/u
// White space, then opening quotes or brackets, then the letters the next word starts with (none if a digit).
const NEXT_WORD = /\s*[\p{Ps}\p{Pi}"'¿¡]*(\p{L}*)/uy
const LOWER_CASE = /^\p{Ll}/u
const LETTER_OR_DOT = /[\p{L}.]/u
const PARAGRAPH_BREAK = /\n[^\n]*\n/
// Abbreviations are short; looking further back would only cost time.
const LOOK_BACK = 32

/** Splits text into sentences, in order, never overlapping, each trimmed and non-empty. */
export function splitSentences (text: string): Span[] {
  const spans: Span[] = []
  let from = 0
  for (const match of text.matchAll(BOUNDARY)) {
    const end = match.index + match[0].length
    if (!endsSentence(text, match[0], match.index, end)) continue
    pushTrimmed(spans, text, from, end)
    from = end
  }
  pushTrimmed(spans, text, from, text.length)
  return spans
}

function endsSentence (text: string, boundary: string, start: number, end: number): boolean {
  NEXT_WORD.lastIndex = end
  const next = NEXT_WORD.exec(text)?.[1] ?? ''
  if ((next === '' && NEXT_WORD.lastIndex === text.length) || PARAGRAPH_BREAK.test(boundary)) return true
  // Like Unicode's sentence rules: "e.g. this", "Wait... what" and '"Really?" she asked' go on.
  if (LOWER_CASE.test(next)) return false
  if (boundary !== '.') return true
  const previous = previousWord(text, start)
  if (ALWAYS_ABBREVIATIONS.has(previous)) return false
  if (AMBIGUOUS_ABBREVIATIONS.has(previous) || INITIALISM.test(previous)) return STOP_WORDS.has(next.toLowerCase())
  return true
}

/** The lower-cased letters and dots just before a period at `at` ("u.s" in "the U.S."). */
function previousWord (text: string, at: number): string {
  let start = at
  while (start > 0 && at - start < LOOK_BACK && isLetterOrDot(text, start - 1)) start--
  return text.slice(start, at).toLowerCase()
}

/** LETTER_OR_DOT on the code unit at `at` (a lone surrogate is no letter); ASCII by hand. */
function isLetterOrDot (text: string, at: number): boolean {
  const code = text.charCodeAt(at)
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 46
  return LETTER_OR_DOT.test(text[at]!)
}

function pushTrimmed (spans: Span[], text: string, start: number, end: number): void {
  while (start < end && isWhiteSpaceAt(text, start)) start++
  while (end > start && isWhiteSpaceAt(text, end - 1)) end--
  if (start < end) spans.push({ start, end })
}
