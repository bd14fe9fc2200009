// A read-only table from words to weights over typed arrays, for the sentiment model's 130,000 word weights. As a
// Map<string, number> each entry is a string, a slot in the Map's own table and, once read, a boxed number, all on the
// V8 heap; here all keys are one UTF-8 byte array with their offsets, an open-addressing index and a Float64Array of
// weights (docs/performance.md#memory has the figures). Float64, not Float32: the weights are 4-decimal numbers that
// Float32 cannot hold, and the answers must be the Map's to the last digit.

import { fnv1a } from './fnv.js'

const encoder = new TextEncoder()
// Keeps a leading U+FEFF, which is part of a key, not a byte order mark.
const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
// In a u-mode pattern a surrogate pair is one code point, so this matches lone surrogates only: UTF-8 cannot hold them.
const LONE_SURROGATE = /\p{Cs}/u

/** Writes key as UTF-8 into bytes at `at`, returning where it ends; ASCII by hand, as the encoder's call costs more. */
function writeUtf8 (key: string, bytes: Uint8Array, at: number): number {
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i)
    if (code < 0x80) {
      bytes[at++] = code
      continue
    }
    const rest = key.slice(i)
    if (LONE_SURROGATE.test(rest)) throw new RangeError(`key ${JSON.stringify(key)} has a lone surrogate, which UTF-8 cannot hold`)
    return at + encoder.encodeInto(rest, bytes.subarray(at)).written
  }
  return at
}

/** FNV-1a over the UTF-16 code units, unsigned; the index uses its high bits, which the multiplications mix best. */
const hashOf = (key: string): number => fnv1a(key) >>> 0

export class WordTable {
  readonly #bytes: Uint8Array
  /** Key i is bytes[offsets[i], offsets[i + 1]). */
  readonly #offsets: Uint32Array
  /** Key i's values are values[i * columns] to values[i * columns + columns - 1]. */
  readonly #values: Float64Array
  readonly #columns: number
  /** Key index + 1, 0 for an empty slot; at most half full, so a missing word is found missing in about two probes. */
  readonly #slots: Uint32Array
  readonly #shift: number
  readonly #mask: number

  /**
   * Keys must be distinct and well-formed UTF-16; values[i * columns + c] is keys[i]'s value in column c (get() reads
   * column 0).
   */
  constructor (keys: readonly string[], values: ArrayLike<number>, columns = 1) {
    if (keys.length * columns !== values.length) throw new RangeError(`${keys.length} keys but ${values.length} values`)
    this.#columns = columns
    let capacity = 0
    for (const key of keys) capacity += key.length * 3
    const bytes = new Uint8Array(capacity)
    this.#offsets = new Uint32Array(keys.length + 1)
    let end = 0
    for (let i = 0; i < keys.length; i++) {
      end = writeUtf8(keys[i]!, bytes, end)
      this.#offsets[i + 1] = end
    }
    this.#bytes = bytes.slice(0, end)
    this.#values = values instanceof Float64Array ? values : Float64Array.from(values)
    const bits = Math.max(1, Math.ceil(Math.log2(keys.length * 2 + 1)))
    this.#slots = new Uint32Array(2 ** bits)
    this.#shift = 32 - bits
    this.#mask = this.#slots.length - 1
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      let slot = hashOf(key) >>> this.#shift
      while (this.#slots[slot] !== 0) {
        if (this.#keyIs(this.#slots[slot]! - 1, key)) throw new RangeError(`key ${JSON.stringify(key)} is listed twice`)
        slot = (slot + 1) & this.#mask
      }
      this.#slots[slot] = i + 1
    }
  }

  /** The key's value (in column 0), or undefined when the table does not have the key: what a Map's get() answers. */
  get (key: string): number | undefined {
    const index = this.indexOf(key)
    return index === -1 ? undefined : this.#values[index * this.#columns]
  }

  /** The key's index, for valueAt(); -1 when the table does not have it. */
  indexOf (key: string): number {
    // The fields in locals: the probe loop reads them each step (a fifth faster than through the private names).
    const slots = this.#slots
    const mask = this.#mask
    for (let slot = hashOf(key) >>> this.#shift; ; slot = (slot + 1) & mask) {
      const entry = slots[slot]!
      if (entry === 0) return -1
      if (this.#keyIs(entry - 1, key)) return entry - 1
    }
  }

  /** Key `index`'s value in `column`. */
  valueAt (index: number, column: number): number {
    return this.#values[index * this.#columns + column]!
  }

  #keyIs (index: number, key: string): boolean {
    const offsets = this.#offsets
    const bytes = this.#bytes
    const start = offsets[index]!
    const end = offsets[index + 1]!
    // UTF-8 takes at least one byte per UTF-16 code unit.
    if (end - start < key.length) return false
    for (let i = 0; i < key.length; i++) {
      const code = key.charCodeAt(i)
      // Past an ASCII prefix the byte at i is no longer character i; the few non-ASCII keys compare as strings.
      if (code >= 0x80) return decoder.decode(bytes.subarray(start, end)) === key
      if (bytes[start + i] !== code) return false
    }
    return end - start === key.length
  }
}
