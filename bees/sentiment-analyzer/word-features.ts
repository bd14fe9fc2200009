// The word evidence the learned model weighs: unigrams, with those inside a
// negation's scope marked ("not good" gives "~good"), and bigrams. Negation
// marking (Das & Chen 2001; Pang, Lee & Vaithyanathan 2002) lets one weight
// mean "good" and another "not good" without any lexicon.
//
// The tokens are those of /[\p{L}\p{N}]+(?:['’]\p{L}+)*|[.,;:!?]/gu over the
// lower-cased text, read by hand: the regex, its match objects and a Set of the
// features took about 4 µs of a 45 µs analysis of an 11-word sentence.

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

/** Words compared one by one up to this many; a Set past it. */
const LINEAR = 32

/**
 * The features of one text, each once, in the order first seen. A word's unigram and the bigram it ends can have been
 * seen only if the word has ("a b" splits at its one space), so they are looked for only then. Words and features are
 * compared one by one while they are few (a Set allocates and rehashes as it grows, and its clear() costs more still);
 * past LINEAR of them, a Set holds them.
 */
class Distinct {
  readonly features: string[] = []
  readonly #words: string[] = []
  #wordSet: Set<string> | null = null
  #featureSet: Set<string> | null = null
  #marks = ''

  /** Whether `word` was read before in this text; it is remembered. */
  repeats (word: string): boolean {
    if (this.#wordSet !== null) {
      if (this.#wordSet.has(word)) return true
      this.#wordSet.add(word)
      return false
    }
    const words = this.#words
    for (let i = 0; i < words.length; i++) if (words[i] === word) return true
    if (words.length === LINEAR) this.#wordSet = new Set(words).add(word)
    else words.push(word)
    return false
  }

  /** A feature of a word read for the first time, which cannot have been seen. */
  addNew (feature: string): void {
    this.features.push(feature)
    this.#featureSet?.add(feature)
  }

  /** A feature that may have been seen. */
  add (feature: string): void {
    const features = this.features
    if (this.#featureSet === null && features.length >= LINEAR) this.#featureSet = new Set(features)
    if (this.#featureSet === null) {
      for (let i = 0; i < features.length; i++) if (features[i] === feature) return
    } else {
      if (this.#featureSet.has(feature)) return
      this.#featureSet.add(feature)
    }
    features.push(feature)
  }

  /** "!" or "?", each once. */
  addMark (mark: string): void {
    if (this.#marks.includes(mark)) return
    this.#marks += mark
    this.addNew(mark)
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
    for (let mark = lower.charCodeAt(i); (mark === APOSTROPHE || mark === CURLY_APOSTROPHE) && i + 1 < lower.length && classAt(lower, i + 1) === LETTER_CLASS; mark = lower.charCodeAt(i)) {
      curly ||= mark === CURLY_APOSTROPHE
      lettered = true
      i += 1
      while (i < lower.length && classAt(lower, i) === LETTER_CLASS) i += widthAt(lower, i)
    }
    const raw = lower.slice(start, i)
    // The first curly apostrophe only, as String.replace with a string replaces.
    const word = curly ? raw.replace('’', "'") : raw
    const unigram = negated ? '~' + word : word
    const bigram = previous === '' ? null : previous + ' ' + word
    if (distinct === null) {
      all!.push(unigram)
      if (bigram !== null) all!.push(bigram)
    } else if (distinct.repeats(word)) {
      distinct.add(unigram)
      if (bigram !== null) distinct.add(bigram)
    } else {
      distinct.addNew(unigram)
      if (bigram !== null) distinct.addNew(bigram)
    }
    previous = word
    const role = ROLES.get(word)
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
  const distinct = new Distinct()
  const hasLetters = readWords(text, distinct)
  return { features: distinct.features, hasLetters }
}
