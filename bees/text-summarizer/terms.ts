import { STOP_WORDS } from './stop-words.js'

const TOKEN_CHARACTER = /[\p{L}\p{N}\p{M}]/u
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}ー]/u
const CJK_OR_OTHER_RUN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}ー]+|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}ー]+/gu
const DIGIT = /^\p{N}+$/u
/** A code unit past ASCII. */
const NON_ASCII = /[\u0080-\uffff]/
const ASCII_TOKEN = /[a-z0-9]+/g

/** Whether the code point at `at` is a letter, a digit or a mark (ASCII by hand), and how many code units it takes. */
function tokenCharacterAt (text: string, at: number): number {
  const code = text.charCodeAt(at)
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) ? 1 : 0
  const width = code >= 0xd800 && text.codePointAt(at)! > 0xffff ? 2 : 1
  return TOKEN_CHARACTER.test(text.slice(at, at + width)) ? width : 0
}

/**
 * The terms a sentence is compared on: lower-cased letter and digit runs (/[\p{L}\p{N}\p{M}]+/gu, read by hand),
 * without English stop words, plurals folded ("reports" and "report" match). Chinese and Japanese are written without
 * spaces, so their runs become overlapping character pairs, the usual stand-in for words in CJK retrieval.
 */
export function contentTerms (sentence: string): string[] {
  const terms: string[] = []
  const lower = sentence.toLowerCase()
  // ASCII text (most of it) has ASCII letters and digits only: a native regex walks it faster than a hand loop.
  if (!NON_ASCII.test(lower)) {
    for (const token of lower.match(ASCII_TOKEN) ?? []) addWord(terms, token)
    return terms
  }
  for (let i = 0; i < lower.length;) {
    let width = tokenCharacterAt(lower, i)
    if (width === 0) {
      i += 1
      continue
    }
    const start = i
    let ascii = true
    for (; width !== 0; width = i < lower.length ? tokenCharacterAt(lower, i) : 0) {
      ascii &&= lower.charCodeAt(i) < 128
      i += width
    }
    const token = lower.slice(start, i)
    if (ascii || !CJK.test(token)) {
      addWord(terms, token)
      continue
    }
    for (const [run] of token.matchAll(CJK_OR_OTHER_RUN)) {
      if (CJK.test(run)) addCharacterPairs(terms, run)
      else addWord(terms, run)
    }
  }
  return terms
}

function addWord (terms: string[], word: string): void {
  // Single letters are initials or pieces of contractions ("don't" -> "t"); a digit may be a count worth matching.
  if (word.length < 2 && !DIGIT.test(word)) return
  if (STOP_WORDS.has(word)) return
  terms.push(foldPlural(word))
}

function addCharacterPairs (terms: string[], run: string): void {
  const chars = [...run]
  if (chars.length === 1) terms.push(run)
  for (let i = 0; i + 1 < chars.length; i++) terms.push(`${chars[i]}${chars[i + 1]}`)
}

/** Harman's S-stemmer: strips English plurals only, so it rarely merges words that mean different things. */
function foldPlural (word: string): string {
  const length = word.length
  if (length < 4) return word
  // The last four code units, as endsWith() compares them.
  const last = word.charCodeAt(length - 1)
  const second = word.charCodeAt(length - 2)
  const third = word.charCodeAt(length - 3)
  const fourth = word.charCodeAt(length - 4)
  if (last !== S) return word
  // -ies, not -eies or -aies: "stories" -> "story".
  if (second === E && third === I && fourth !== E && fourth !== A) return `${word.slice(0, -3)}y`
  // -es, not -aes, -ees or -oes.
  if (second === E && third !== A && third !== E && third !== O) return word.slice(0, -1)
  // -s, not -us or -ss.
  if (second !== U && second !== S) return word.slice(0, -1)
  return word
}

const [A, E, I, O, S, U] = [...'aeiosu'].map(letter => letter.charCodeAt(0))
