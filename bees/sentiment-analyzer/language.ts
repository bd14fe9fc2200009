// A cheap "is this English?" check. Both lexicons are English-only, so on other
// languages they either find nothing or fire on a stray cognate ("excelente",
// "super"); either way the label would be a guess and must not look confident.
import { fnv1a, FNV_OFFSET, FNV_PRIME } from './fnv.js'

// Frequent English function words: almost every English sentence has one.
const ENGLISH_FUNCTION_WORDS = new Set([
  'the', 'a', 'an', 'and', 'or', 'but', 'is', 'are', 'was', 'were', 'be', 'been', 'am',
  'i', 'you', 'he', 'she', 'it', 'we', 'they', 'me', 'my', 'your', 'his', 'her', 'its',
  'our', 'their', 'this', 'that', 'these', 'those', 'of', 'to', 'in', 'on', 'for', 'with',
  'at', 'by', 'from', 'as', 'so', 'if', 'not', 'no', 'have', 'has', 'had', 'do', 'does',
  'did', 'will', 'would', 'can', 'could', 'just', 'all', 'what', 'there', 'very', 'about',
  "it's", "don't", "i'm", "that's", "can't", "isn't", "i've", "you're", "didn't", "doesn't"
])

// Frequent function words of the commonest Latin-script languages, leaving out
// any that are also English words, slang or domain parts ("die", "war", "per",
// "van", "pour", "den", "um", "y", "com").
const FOREIGN_FUNCTION_WORDS = new Set([
  // German
  'der', 'das', 'und', 'ist', 'nicht', 'ein', 'eine', 'ich', 'mit', 'sehr', 'auch', 'sich',
  'auf', 'für', 'wir', 'sie', 'dem', 'des', 'wie', 'aber', 'oder', 'noch', 'sind',
  // French
  'le', 'les', 'est', 'et', 'une', 'je', 'pas', 'avec', 'très', 'mais', 'dans', 'sur',
  'nous', 'vous', 'il', 'elle', "c'est", 'ce', 'cette', 'du', 'qui', 'que', 'ne',
  // Spanish and Portuguese
  'el', 'los', 'las', 'es', 'está', 'esta', 'este', 'muy', 'pero', 'por', 'para', 'con',
  'una', 'del', 'lo', 'se', 'mi', 'não', 'é', 'muito', 'isso', 'você',
  // Italian
  'di', 'che', 'è', 'sono', 'molto', 'questo', 'della', 'gli', 'anche',
  // Dutch
  'het', 'een', 'niet', 'ik', 'zijn', 'dat', 'maar', 'wel'
])

const LATIN_LETTER = /[a-zA-Z\u00C0-\u024F]/g
const ANY_LETTER = /\p{L}/gu
const LETTER = /\p{L}/u
const NON_ASCII = /\P{ASCII}/u
const ENGLISH = 1
const FOREIGN = 2
/** Each function word and its language, with one look-up; a word in both sets counts as English. */
const FUNCTION_WORDS = new Map([
  ...[...FOREIGN_FUNCTION_WORDS].map(word => [word, FOREIGN] as const),
  ...[...ENGLISH_FUNCTION_WORDS].map(word => [word, ENGLISH] as const)
])
/** No function word is longer: a longer word need not be looked up. */
const LONGEST = Math.max(...[...FUNCTION_WORDS.keys()].map(word => word.length))

// The function words in an open-addressing table by the FNV-1a hash of their code units, so that a word of the text
// is looked up where it lies, without becoming a string (its slice and a Map's look-up cost most of the check).
const TABLE_BITS = 10
const FUNCTION_LIST = [...FUNCTION_WORDS.keys()]
const LANGUAGE = FUNCTION_LIST.map(word => FUNCTION_WORDS.get(word)!)
/** Index + 1 into FUNCTION_LIST, 0 for none; at most a quarter full. */
const SLOTS = new Int16Array(1 << TABLE_BITS)
FUNCTION_LIST.forEach((word, index) => {
  let slot = fnv1a(word) >>> (32 - TABLE_BITS)
  while (SLOTS[slot] !== 0) slot = (slot + 1) & ((1 << TABLE_BITS) - 1)
  SLOTS[slot] = index + 1
})

/** FUNCTION_WORDS.get(text.slice(start, end)), given the FNV-1a hash of those code units. */
function languageOf (text: string, start: number, end: number, hash: number): number | undefined {
  for (let slot = hash >>> (32 - TABLE_BITS); ; slot = (slot + 1) & ((1 << TABLE_BITS) - 1)) {
    const entry = SLOTS[slot]!
    if (entry === 0) return undefined
    const word = FUNCTION_LIST[entry - 1]!
    if (word.length !== end - start) continue
    let k = 0
    while (k < word.length && word.charCodeAt(k) === text.charCodeAt(start + k)) k++
    if (k === word.length) return LANGUAGE[entry - 1]
  }
}

function mostlyNonLatin (text: string): boolean {
  const letters = text.match(ANY_LETTER)?.length ?? 0
  const latin = text.match(LATIN_LETTER)?.length ?? 0
  return latin * 2 < letters
}

/** An ASCII letter or "'". */
const isAsciiWordCode = (code: number): boolean => (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 39

/** Whether the code point at `at` is a letter or "'": the words of /[\p{L}']+/gu. */
function inWord (text: string, at: number): boolean {
  const code = text.charCodeAt(at)
  if (code < 128) return isAsciiWordCode(code)
  return LETTER.test(String.fromCodePoint(text.codePointAt(at)!))
}

export function looksNonEnglish (text: string): boolean {
  // Cyrillic, CJK, Arabic, ... script: neither lexicon has anything to say.
  // (Pure ASCII, the common case, skips the letter census.)
  if (NON_ASCII.test(text) && mostlyNonLatin(text)) return true

  let english = 0
  let foreign = 0
  const lower = text.toLowerCase()
  for (let i = 0; i < lower.length;) {
    if (!inWord(lower, i)) {
      i += 1
      continue
    }
    const start = i
    let hash = FNV_OFFSET
    while (i < lower.length) {
      const code = lower.charCodeAt(i)
      // An ASCII code unit by itself, without inWord's call and codePointAt (most of the check's time).
      if (code < 128) {
        if (!isAsciiWordCode(code)) break
        hash = Math.imul(hash ^ code, FNV_PRIME)
        i += 1
        continue
      }
      if (!inWord(lower, i)) break
      const end = lower.codePointAt(i)! > 0xffff ? i + 2 : i + 1
      for (; i < end; i++) hash = Math.imul(hash ^ lower.charCodeAt(i), FNV_PRIME)
    }
    if (i - start > LONGEST) continue
    const language = languageOf(lower, start, i, hash)
    if (language === ENGLISH) english += 1
    else if (language === FOREIGN) foreign += 1
  }
  // At least two foreign function words, and more than English ones: a stray
  // "La La Land" or "c'est la vie" inside English text stays English.
  return foreign >= 2 && foreign > english
}
