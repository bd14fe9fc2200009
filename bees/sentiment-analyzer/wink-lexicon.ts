// wink-eng-lite-web-model's lexicon, read as wink-nlp's cache reads it (wink-nlp/src/cache.js), with the words of the
// text being read that it does not know.
//
// wink-nlp's cache adds every unknown word to the lexicon for the process's life, and its tokenizer looks words up
// there, so a text could be cut into other tokens once the process had read another one ("friend's" is "friend" +
// "'s" until some text ends in "friend's."); the cache also grew by about 110 bytes for every word it had not seen.
// Here a text's unknown words live only while it is read: every text is read as a new process reads it.
import winkModel from 'wink-eng-lite-web-model'
import { fnv1a } from './fnv.js'

/** [word of the packed entry, mask, shift, ...]: where a property sits in the lexicon (wink's packing layout). */
type Field = readonly [number, number, number, ...number[]]

interface CoreModel {
  features: {
    lexeme: { hash: Record<string, number>, list: string[], intrinsicSize: number }
    tokenType: { list: string[] }
  }
  packing: { size: number, layout: Record<string, Field> }
  lexicon: Uint32Array
  xpansions: Uint32Array
  trex: unknown
  tcat: { hash: Record<string, number> }
  preserve: unknown
}

export const core = (winkModel.core as () => CoreModel)()

const { lexicon, xpansions } = core
const { list } = core.features.lexeme
/** Lexemes below this index are the model's own; those at or above it are the text's. */
export const KNOWN = core.features.lexeme.intrinsicSize
const PACKED = core.packing.size

function field (name: string): (index: number) => number {
  const layout = core.packing.layout[name]
  if (layout === undefined) throw new Error(`wink-eng-lite-web-model has no ${name} in its packing layout`)
  const [offset, mask, shift] = layout
  return (index) => (lexicon[offset + index * PACKED]! & mask) >>> shift
}

const normalOffset = field('normal')
const isSpellingMapped = field('isSpellingMapped')
const lemma = field('lemma')
const isContraction = field('isContraction')
const tokenTypeOf = field('tokenType')
const sbdHintOf = field('sbdHint')
const isAbbrevOf = field('isAbbrev')

/**
 * The model's lexemes by the FNV-1a hash of their code units (index + 1, 0 for none; about a third full), so that a
 * piece of the text is looked up where it lies: the model's own table is an object of 87,593 keys, and a look-up
 * there needs the piece as a string, which the engine then finds in its table of internalized strings first.
 */
const LEXEME_BITS = 18
const LEXEME_MASK = (1 << LEXEME_BITS) - 1
const LEXEME_SLOTS = new Int32Array(1 << LEXEME_BITS)
if (list.length * 2 > LEXEME_SLOTS.length) throw new Error('wink-eng-lite-web-model: more lexemes than wink-lexicon.ts\'s table holds')
for (let index = 0; index < list.length; index++) {
  const word = list[index]!
  let slot = fnv1a(word) >>> (32 - LEXEME_BITS)
  while (LEXEME_SLOTS[slot] !== 0) slot = (slot + 1) & LEXEME_MASK
  LEXEME_SLOTS[slot] = index + 1
}

/** The model's lexeme text.slice(start, end), or -1: what its lexeme hash answers, without the slice. */
function modelLexeme (text: string, start: number, end: number): number {
  const length = end - start
  for (let slot = fnv1a(text, start, end) >>> (32 - LEXEME_BITS); ; slot = (slot + 1) & LEXEME_MASK) {
    const entry = LEXEME_SLOTS[slot]!
    if (entry === 0) return -1
    const word = list[entry - 1]!
    if (word.length !== length) continue
    let k = 0
    while (k < length && word.charCodeAt(k) === text.charCodeAt(start + k)) k++
    if (k === length) return entry - 1
  }
}

export const CATEGORIES = core.tcat.hash
const TYPE_NAMES = core.features.tokenType.list
/** Token types the negation setter leaves unmarked (wink-eng-lite-web-model's negation-setter.js). */
const UNNEGATED = new Set(['punctuation', 'emoji', 'emoticon'])
// wink's isAbbrev feature (wink-eng-lite-web-model's feature.js), for the words a text adds.
const ABBREVIATION = /[a-z].*\.$/i

interface Added { text: string, normal: number, category: number }

/**
 * The lexemes one text is read with: the model's, looked up by text as wink's cache does, and the ones the text
 * adds, numbered from KNOWN in the order it adds them, as wink's cache numbers them in a new process.
 */
export class Lexemes {
  #ids = new Map<string, number>()
  #added: Added[] = []

  /** Forget the previous text's words (new collections: clear() on a Map costs more than making one). */
  clear (): void {
    if (this.#added.length === 0) return
    this.#ids = new Map()
    this.#added = []
  }

  /** The lexeme's index, or -1 if neither the model nor the text has it. */
  indexOf (text: string): number {
    return this.indexAt(text, 0, text.length)
  }

  /** indexOf(text.slice(start, end)), the piece made a string only if the model lacks it and the text has added words. */
  indexAt (text: string, start: number, end: number): number {
    const known = modelLexeme(text, start, end)
    if (known !== -1 || this.#added.length === 0) return known
    return this.#ids.get(start === 0 && end === text.length ? text : text.slice(start, end)) ?? -1
  }

  /** wink's cache.add: the index of `text`, added with its lower-case form if they are new. */
  add (text: string, category: number): number {
    const lower = text.toLowerCase()
    const known = this.indexOf(text)
    if (known !== -1) {
      if (lower !== text && this.indexOf(lower) === -1) this.#push(lower, -1, category)
      return known
    }
    const index = KNOWN + this.#added.length
    this.#ids.set(text, index)
    if (lower === text) {
      this.#added.push({ text, normal: index, category })
      return index
    }
    const normal = this.indexOf(lower)
    this.#added.push({ text, normal: normal === -1 ? index + 1 : normal, category })
    if (normal === -1) this.#push(lower, -1, category)
    return index
  }

  #push (text: string, normal: number, category: number): void {
    const index = KNOWN + this.#added.length
    this.#ids.set(text, index)
    this.#added.push({ text, normal: normal === -1 ? index : normal, category })
  }

  /** wink's cache.normal: the lexeme the automata see for a token that is not part of an expansion. */
  normal (index: number): number {
    if (index < KNOWN) return isSpellingMapped(index) === 1 ? lemma(index) : normalOffset(index) + index
    const normal = this.#added[index - KNOWN]!.normal
    return normal < KNOWN && isSpellingMapped(normal) === 1 ? lemma(normal) : normal
  }

  /** Whether the negation setter leaves a token of this lexeme unmarked (its token type). */
  unnegated (index: number): boolean {
    const type = index < KNOWN ? tokenTypeOf(index) : this.#added[index - KNOWN]!.category
    return UNNEGATED.has(TYPE_NAMES[type]!)
  }

  /** The sentence automaton's hint (wink's sbdHint property); the text's own words have none. */
  sbdHint (index: number): number {
    return index < KNOWN ? sbdHintOf(index) : 0
  }

  isAbbrev (index: number): boolean {
    return index < KNOWN ? isAbbrevOf(index) === 1 : ABBREVIATION.test(this.#added[index - KNOWN]!.text)
  }

  length (index: number): number {
    return index < KNOWN ? list[index]!.length : this.#added[index - KNOWN]!.text.length
  }
}

/**
 * wink's cache.lookup for a model lexeme that is a contraction ("can't", "I'm"): the expansion's start and its number
 * of tokens in `xpansions`, each token four numbers (lexeme, normal, lemma, part of speech); null for any other.
 */
export function expansionOf (index: number): { start: number, count: number } | null {
  if (index >= KNOWN || isContraction(index) === 0) return null
  const packed = lemma(index)
  return { start: packed & 0x3FFF, count: (packed & (0x1F << 14)) >> 14 }
}

/** The lexeme and the normal (wink's cache.nox) of the expansion token at `at` in `xpansions`. */
export const expansionLexeme = (at: number): number => xpansions[at]!
export const expansionNormal = (at: number): number => xpansions[(at + 1) & 0x3FFF]!
