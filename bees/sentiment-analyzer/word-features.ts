// The word evidence the learned model weighs: unigrams, with those inside a
// negation's scope marked ("not good" gives "~good"), and bigrams. Negation
// marking (Das & Chen 2001; Pang, Lee & Vaithyanathan 2002) lets one weight
// mean "good" and another "not good" without any lexicon.
//
// The tokens are those of /[\p{L}\p{N}]+(?:['’]\p{L}+)*|[.,;:!?]/gu over the
// lower-cased text, read by hand: the regex, its match objects and a Set of the
// features took about 4 µs of a 45 µs analysis of an 11-word sentence.

import { grown, trimmed } from '../grow.js'
import { fnv1a } from './fnv.js'

const SCOPE_END = 1
const NEGATOR = 2
/**
 * "but" starts a clause whose polarity often reverses the first one's; a
 * negation before it should not reach past it. One look-up tells a word's role.
 */
const ROLES = new Map<string, number>([
  ...['but', 'however', 'although', 'though', 'yet'].map(word => [word, SCOPE_END] as const),
  ...['not', 'no', 'never', 'cannot', 'nothing', 'nobody', 'none', 'nor', 'neither', 'without', 'hardly', 'barely'].map(word => [word, NEGATOR] as const)
])
/**
 * The (length, first code unit) pairs of the role words (all ASCII): a word of any other shape has no role, told
 * without hashing it for the Map, which took a fifth of the features' time on an 11-word sentence.
 */
const LONGEST_ROLE = Math.max(...[...ROLES.keys()].map(word => word.length))
const ROLE_SHAPES = new Uint8Array((LONGEST_ROLE + 1) * 128)
for (const word of ROLES.keys()) ROLE_SHAPES[word.length * 128 + word.charCodeAt(0)] = 1
const roleOf = (word: string): number | undefined =>
  word.length <= LONGEST_ROLE && word.charCodeAt(0) < 128 && ROLE_SHAPES[word.length * 128 + word.charCodeAt(0)] === 1 ? ROLES.get(word) : undefined
const LETTER = /\p{L}/u
const NUMBER = /\p{N}/u

const APOSTROPHE = 39
const CURLY_APOSTROPHE = 0x2019
const NONE = 0
const DIGIT = 1
const LETTER_CLASS = 2

/** The class of the code point at `at`: a letter (\p{L}), a number (\p{N}) or neither. ASCII by hand, the rest by regex. */
function classAt (text: string, at: number): number {
  const code = text.charCodeAt(at)
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) ? LETTER_CLASS : code >= 48 && code <= 57 ? DIGIT : NONE
  const char = String.fromCodePoint(text.codePointAt(at)!)
  return LETTER.test(char) ? LETTER_CLASS : NUMBER.test(char) ? DIGIT : NONE
}

const widthAt = (text: string, at: number): number => text.charCodeAt(at) >= 0xd800 && text.codePointAt(at)! > 0xffff ? 2 : 1

/** One of . , ; : ! ? — a token of its own, which ends a clause. */
const isClauseMark = (code: number): boolean => code === 46 || code === 44 || code === 59 || code === 58 || code === 33 || code === 63

/** /n['’]t$/: a negated contraction ("didn't", "isn’t"). */
function endsInNegatedContraction (word: string): boolean {
  const last = word.length - 1
  const mark = word.charCodeAt(last - 1)
  return last >= 2 && word.charCodeAt(last) === 116 && (mark === APOSTROPHE || mark === CURLY_APOSTROPHE) && word.charCodeAt(last - 2) === 110
}

/**
 * What a text has used of one word: its unigram plain and negated, and the words before it in its bigrams (the first in
 * `after`, '' if none yet; any others in `more`: most words of a text come once, and an array each cost more).
 */
interface Used { plain: boolean, negated: boolean, after: string, more: string[] | null }

/** Whether `used` has a bigram after `previous`; remembers it if not. */
function newBigram (used: Used, previous: string): boolean {
  if (used.after === '') {
    used.after = previous
    return true
  }
  if (used.after === previous || used.more?.includes(previous) === true) return false
  if (used.more === null) used.more = [previous]
  else used.more.push(previous)
  return true
}

/** Words looked for one by one up to this many (as cheap as hashing them); in a hash table past it. */
const LINEAR = 16

/**
 * An open-addressing table of a text's words by their FNV-1a hash (each slot a word's index + 1, 0 for none), reused
 * from text to text. Looking each word up among all those before it one by one cost a third of a 60-word review's
 * features, and a Map per text its allocation.
 */
let slots = new Int32Array(64)

/**
 * The features of one text, each once, in the order first seen. A feature can repeat only one of the same word: "~w"
 * an earlier "~w", and "a w" an earlier "a w" ("a b" splits at its one space, words have none). So each word keeps what
 * it has been used in, and a feature is made only when it is new (a Set of every feature cost more than the features).
 */
class Distinct {
  readonly features: string[] = []
  readonly #words: string[] = []
  readonly #used: Used[] = []
  readonly #length: number
  /** 32 less the table's bits, once the words are in it; 0 before. */
  #shift = 0
  #marks = ''

  /** For a text of `length` code units. */
  constructor (length: number) {
    this.#length = length
  }

  /** What the text has used of `word` so far (nothing, the first time). */
  used (word: string): Used {
    if (this.#shift === 0) {
      const words = this.#words
      for (let i = 0; i < words.length; i++) if (words[i] === word) return this.#used[i]!
      if (words.length === LINEAR) this.#hashAll()
      else return this.#add(word)
    }
    const shift = this.#shift
    const hash = fnv1a(word)
    const mask = (1 << (32 - shift)) - 1
    for (let slot = hash >>> shift; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]!
      if (entry === 0) {
        const used = this.#add(word)
        slots[slot] = this.#words.length
        return used
      }
      if (this.#words[entry - 1] === word) return this.#used[entry - 1]!
    }
  }

  #add (word: string): Used {
    const used: Used = { plain: false, negated: false, after: '', more: null }
    this.#words.push(word)
    this.#used.push(used)
    return used
  }

  /**
   * Puts the words so far in the table. A text's words are runs with something else between them, so at most half the
   * code units of its lower case, which is at most twice as long ("İ" lower-cases to two): at most its length + 1
   * words, the table at most half full.
   */
  #hashAll (): void {
    const bits = Math.ceil(Math.log2(2 * (this.#length + 1)))
    slots = grown(slots, 1 << bits)
    slots.fill(0, 0, 1 << bits)
    this.#shift = 32 - bits
    const mask = (1 << bits) - 1
    for (let i = 0; i < this.#words.length; i++) {
      let slot = fnv1a(this.#words[i]!) >>> this.#shift
      while (slots[slot] !== 0) slot = (slot + 1) & mask
      slots[slot] = i + 1
    }
  }

  /** "!" or "?", each once. */
  addMark (mark: string): void {
    if (this.#marks.includes(mark)) return
    this.#marks += mark
    this.features.push(mark)
  }
}

/** Gives the features of `text`, in order, to `take`: each once to a Distinct, all of them to an array. Returns whether any word had a letter. */
function readWords (text: string, take: Distinct | string[]): boolean {
  const lower = text.toLowerCase()
  const distinct = take instanceof Distinct ? take : null
  const all = distinct === null ? take as string[] : null
  let lettered = false
  let negated = false
  let previous = ''
  for (let i = 0; i < lower.length;) {
    const code = lower.charCodeAt(i)
    if (isClauseMark(code)) {
      if (code === 33 || code === 63) {
        const mark = code === 33 ? '!' : '?'
        if (distinct !== null) distinct.addMark(mark)
        else all!.push(mark)
      }
      negated = false
      previous = ''
      i += 1
      continue
    }
    const start = i
    let curly = false
    for (let kind = classAt(lower, i); kind !== NONE; kind = i < lower.length ? classAt(lower, i) : NONE) {
      if (kind === LETTER_CLASS) lettered = true
      i += widthAt(lower, i)
    }
    if (i === start) {
      i += 1
      continue
    }
    // Each "'" or "’" followed by letters joins them to the word ("didn't", "rock’n’roll").
    for (
      let mark = lower.charCodeAt(i);
      (mark === APOSTROPHE || mark === CURLY_APOSTROPHE) && i + 1 < lower.length && classAt(lower, i + 1) === LETTER_CLASS;
      mark = lower.charCodeAt(i)
    ) {
      curly ||= mark === CURLY_APOSTROPHE
      lettered = true
      i += 1
      while (i < lower.length && classAt(lower, i) === LETTER_CLASS) i += widthAt(lower, i)
    }
    const raw = lower.slice(start, i)
    // The first curly apostrophe only, as String.replace with a string replaces.
    const word = curly ? raw.replace('’', "'") : raw
    if (distinct === null) {
      all!.push(negated ? '~' + word : word)
      if (previous !== '') all!.push(previous + ' ' + word)
    } else {
      const used = distinct.used(word)
      if (negated ? !used.negated : !used.plain) {
        if (negated) used.negated = true
        else used.plain = true
        distinct.features.push(negated ? '~' + word : word)
      }
      if (previous !== '' && newBigram(used, previous)) distinct.features.push(previous + ' ' + word)
    }
    previous = word
    const role = roleOf(word)
    if (role === SCOPE_END) negated = false
    else if (role === NEGATOR || endsInNegatedContraction(word)) negated = true
  }
  return lettered
}

/** Feature names of one (already normalized) text; repeats are kept, order is not meaningful. */
export function wordFeatures (text: string): string[] {
  const features: string[] = []
  readWords(text, features)
  return features
}

/** The features of one (already normalized) text, each once, in the order first seen; and whether any word has a letter. */
export interface WordEvidence { features: string[], hasLetters: boolean }

export function distinctWordFeatures (text: string): WordEvidence {
  const distinct = new Distinct(text.length)
  const hasLetters = readWords(text, distinct)
  slots = trimmed(slots, 64)
  return { features: distinct.features, hasLetters }
}
