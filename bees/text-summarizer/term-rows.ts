// The sentences as rows of numbered terms (the input of centrality.ts), and each sentence's words (what the budget
// counts), in one pass over the text when it can.
//
// A term is a lower-cased letter-and-digit run that is no stop word, plural folded (terms.ts); terms are numbered in
// the order the text first uses them. Text whose every character is in Latin-1 (English prose, and most of Western
// Europe's) is read code unit by code unit here: the run, its stop-word look-up, its folding and its number come from
// one hash of its characters, and no term is ever made a string. Any other text goes through contentTerms() and a
// Map, which give the same rows. On a 276-word article the terms, their Map and the word counts took 44 of 95 µs.
import { countWords } from './words.js'
import { STOP_WORDS } from './stop-words.js'
import { contentTerms } from './terms.js'
import { grown, trimmed } from '../grow.js'
import type { Span } from './sentences.js'

/**
 * Row i is ids[start[i]] to ids[start[i + 1] - 1], its terms in text order with repeats; `terms` are numbered 0 to
 * terms - 1. `ids` may be scratch space that the next termRows() call overwrites: read the rows before calling again.
 */
export interface TermRows { start: Int32Array, ids: Int32Array, terms: number, words: Int32Array }

// As a signed 32-bit integer, the form Math.imul gives: a hash that starts as a double (0x811c9dc5 > 2³¹) keeps the
// scan's variables doubles.
const FNV_OFFSET = 0x811c9dc5 | 0
const FNV_PRIME = 0x01000193
const step = (hash: number, code: number): number => Math.imul(hash ^ code, FNV_PRIME)

// What terms.ts and words.ts make of each Latin-1 code unit, taken from their own regexes and toLowerCase(): its lower
// case (LOWER), and in one number (one look-up a code unit) that lower case shifted by 2, plus TOKEN if the lower case
// is a letter, digit or mark, plus WHITE if the code unit is white space.
const LATIN_1 = 256
const WHITE = 1
const TOKEN = 2
const LOWER = new Uint8Array(LATIN_1)
const CLASS = new Int32Array(LATIN_1)
const NUMBER = new Uint8Array(LATIN_1)
for (let code = 0; code < LATIN_1; code++) {
  const char = String.fromCharCode(code)
  const lower = char.toLowerCase()
  // Every Latin-1 character lower-cases to one Latin-1 character, and on its own: no rule there looks at its neighbours.
  if (lower.length !== 1 || lower.charCodeAt(0) >= LATIN_1) throw new Error(`${JSON.stringify(char)} lower-cases out of Latin-1`)
  LOWER[code] = lower.charCodeAt(0)
  CLASS[code] = (LOWER[code]! << 2) | (/[\p{L}\p{N}\p{M}]/u.test(lower) ? TOKEN : 0) | (/\s/.test(char) ? WHITE : 0)
  NUMBER[code] = /^\p{N}+$/u.test(char) ? 1 : 0
}

const [LOWER_A, LOWER_E, LOWER_I, LOWER_O, LOWER_S, LOWER_U, LOWER_Y] = [...'aeiosuy'].map(letter => letter.charCodeAt(0))

/** A small open-addressing table of strings by their FNV-1a hash, for the stop words. */
const STOP_BITS = 10
const STOP_LIST = [...STOP_WORDS]
const stopSlots = new Int32Array(1 << STOP_BITS).fill(-1)
for (let w = 0; w < STOP_LIST.length; w++) {
  const word = STOP_LIST[w]!
  let hash = FNV_OFFSET
  for (let i = 0; i < word.length; i++) hash = step(hash, word.charCodeAt(i))
  let slot = (hash >>> 0) >>> (32 - STOP_BITS)
  while (stopSlots[slot] !== -1) slot = (slot + 1) & ((1 << STOP_BITS) - 1)
  stopSlots[slot] = w
}

// One call's scratch, reused: the terms so far (their code units, one after the other, and an open-addressing table
// of their numbers by hash) and the numbers of the terms found.
let termChars = new Uint16Array(1024)
let termStart = new Int32Array(257)
let termSlots = new Int32Array(512)
let ids = new Int32Array(256)

/**
 * The rows of the sentences text.slice(start, end) of `spans`. Latin-1 text is read in place: a sentence sliced from
 * the text is a view of it, slower to read code unit by code unit than the text itself.
 */
export function termRows (text: string, spans: readonly Span[]): TermRows {
  const rows = scan(text, spans)
  trimScratch()
  return rows ?? throughStrings(spans.map(({ start, end }) => text.slice(start, end)))
}

function throughStrings (sentences: readonly string[]): TermRows {
  const numbers = new Map<string, number>()
  const start = new Int32Array(sentences.length + 1)
  const found: number[] = []
  const words = new Int32Array(sentences.length)
  sentences.forEach((sentence, i) => {
    for (const term of contentTerms(sentence)) {
      let id = numbers.get(term)
      if (id === undefined) {
        id = numbers.size
        numbers.set(term, id)
      }
      found.push(id)
    }
    start[i + 1] = found.length
    words[i] = countWords(sentence)
  })
  return { start, ids: Int32Array.from(found), terms: numbers.size, words }
}

/** The scan's state between runs. */
interface Scan { text: string, bits: number, terms: number, found: number }

/** The rows of Latin-1 text; null, at the first code unit past Latin-1, for any other (a test of each sentence first cost a pass over the text). */
function scan (text: string, spans: readonly Span[]): TermRows | null {
  let total = 0
  for (const { start, end } of spans) total += end - start
  // No more terms than runs, no more runs than half the code units (plus one per sentence), no more code units than the text's.
  const most = (total >> 1) + spans.length + 1
  ids = grown(ids, most)
  termChars = grown(termChars, total + most)
  termStart = grown(termStart, most + 1)
  const bits = Math.max(4, Math.ceil(Math.log2(most * 2)))
  termSlots = grown(termSlots, 1 << bits)
  termSlots.fill(0, 0, 1 << bits)
  const state: Scan = { text, bits, terms: 0, found: 0 }
  const start = new Int32Array(spans.length + 1)
  const words = new Int32Array(spans.length)
  for (let i = 0; i < spans.length; i++) {
    const { start: first, end } = spans[i]!
    let from = -1
    // The run's hash, and its hash one and three code units before its end: what folding a plural may keep.
    let hash = 0
    let less1 = 0
    let less2 = 0
    let less3 = 0
    let inWord = false
    let count = 0
    for (let k = first; k < end; k++) {
      const code = text.charCodeAt(k)
      if (code >= LATIN_1) return null
      const kind = CLASS[code]!
      const white = (kind & WHITE) !== 0
      if (!white && !inWord) count++
      inWord = !white
      if ((kind & TOKEN) !== 0) {
        if (from === -1) {
          from = k
          hash = FNV_OFFSET
        }
        less3 = less2
        less2 = less1
        less1 = hash
        hash = step(hash, kind >> 2)
      } else if (from !== -1) {
        addRun(state, from, k, hash, less1, less3)
        from = -1
      }
    }
    if (from !== -1) addRun(state, from, end, hash, less1, less3)
    start[i + 1] = state.found
    words[i] = count
  }
  // A view of the scratch, not a copy: a copy of more than 64 bytes is an ArrayBuffer of its own, and allocating one
  // cost more than a tenth of the scan.
  return { start, ids: ids.subarray(0, state.found), terms: state.terms, words }
}

/** Lets go of the scratch a long text grew past what is kept between calls. */
function trimScratch (): void {
  ids = trimmed(ids, 256)
  termChars = trimmed(termChars, 1024)
  termStart = trimmed(termStart, 257)
  termSlots = trimmed(termSlots, 512)
}

/** The lower-cased code unit at `at` of the text being read. */
const lowerAt = (state: Scan, at: number): number => LOWER[state.text.charCodeAt(at)]!

/**
 * terms.ts's addWord() and foldPlural() for the run from..to of the sentence, given the FNV-1a hash of the whole run
 * and of all but its last one and three code units; then its number.
 */
function addRun (state: Scan, from: number, to: number, hash: number, less1: number, less3: number): void {
  const length = to - from
  // Single letters are initials or pieces of contractions; a digit may be a count worth matching.
  if (length < 2 && NUMBER[lowerAt(state, from)] !== 1) return
  if (isStopWord(state, from, length, hash)) return
  let kept = length
  let y = false
  let termHash = hash
  if (length >= 4 && lowerAt(state, to - 1) === LOWER_S) {
    const second = lowerAt(state, to - 2)
    const third = lowerAt(state, to - 3)
    const fourth = lowerAt(state, to - 4)
    if (second === LOWER_E && third === LOWER_I && fourth !== LOWER_E && fourth !== LOWER_A) {
      kept = length - 3
      y = true
      termHash = step(less3, LOWER_Y!)
    } else if ((second === LOWER_E && third !== LOWER_A && third !== LOWER_E && third !== LOWER_O) || (second !== LOWER_U && second !== LOWER_S)) {
      kept = length - 1
      termHash = less1
    }
  }
  const termLength = y ? kept + 1 : kept
  const mask = (1 << state.bits) - 1
  let slot = (termHash >>> 0) >>> (32 - state.bits)
  for (; ; slot = (slot + 1) & mask) {
    const entry = termSlots[slot]!
    if (entry === 0) break
    if (sameTerm(state, entry - 1, from, kept, y, termLength)) {
      ids[state.found++] = entry - 1
      return
    }
  }
  const id = state.terms++
  const at = termStart[id]!
  for (let k = 0; k < kept; k++) termChars[at + k] = lowerAt(state, from + k)
  if (y) termChars[at + kept] = LOWER_Y!
  termStart[id + 1] = at + termLength
  termSlots[slot] = id + 1
  ids[state.found++] = id
}

function sameTerm (state: Scan, id: number, from: number, kept: number, y: boolean, termLength: number): boolean {
  const at = termStart[id]!
  if (termStart[id + 1]! - at !== termLength) return false
  for (let k = 0; k < kept; k++) if (termChars[at + k] !== lowerAt(state, from + k)) return false
  return !y || termChars[at + kept] === LOWER_Y
}

function isStopWord (state: Scan, from: number, length: number, hash: number): boolean {
  const mask = (1 << STOP_BITS) - 1
  for (let slot = (hash >>> 0) >>> (32 - STOP_BITS); ; slot = (slot + 1) & mask) {
    const w = stopSlots[slot]!
    if (w === -1) return false
    const word = STOP_LIST[w]!
    if (word.length !== length) continue
    let k = 0
    while (k < length && word.charCodeAt(k) === lowerAt(state, from + k)) k++
    if (k === length) return true
  }
}
