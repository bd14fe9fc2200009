import { STOP_WORDS } from './stop-words.js'

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu
const CJK = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}ー]/u
const CJK_OR_OTHER_RUN = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}ー]+|[^\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}ー]+/gu
const DIGIT = /^\p{N}+$/u

/**
 * The terms a sentence is compared on: lower-cased letter and digit runs, without English stop words, plurals folded
 * ("reports" and "report" match). Chinese and Japanese are written without spaces, so their runs become overlapping
 * character pairs, the usual stand-in for words in CJK retrieval.
 */
export function contentTerms (sentence: string): string[] {
  const terms: string[] = []
  for (const token of sentence.toLowerCase().match(TOKEN) ?? []) {
    if (!CJK.test(token)) {
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
  if (word.length < 4) return word
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return `${word.slice(0, -3)}y`
  if (word.endsWith('es') && !word.endsWith('aes') && !word.endsWith('ees') && !word.endsWith('oes')) return word.slice(0, -1)
  if (word.endsWith('s') && !word.endsWith('us') && !word.endsWith('ss')) return word.slice(0, -1)
  return word
}
