// wink-nlp's pattern automaton (wink-nlp/src/automaton.js): recognize(), for machines run without a pattern swap, over
// the same exported machines, with the states in Maps and arrays instead of objects keyed by strings.

import { grown } from '../grow.js'

/** wink's end-of-text token and the key of a state's "otherwise" transition. */
const END = 2070000
const OTHERWISE = 2070003
const ROOT = 0
/** A root with more transitions than this reads them from an array indexed by lexeme (the sentiment automaton's 8,205). */
const DENSE_ROOT = 256
/** Lexemes below this are words; above it are wink's hints and end-of-text token. */
const WORDS = 1_000_000

/** What recognize() found: the i-th of `count` matches spans tokens first[i]..last[i] and ends in terminal state state[i]. */
export class Matches {
  first = new Int32Array(64)
  last = new Int32Array(64)
  state = new Int32Array(64)
  count = 0

  push (first: number, last: number, state: number): void {
    if (this.count === this.first.length) {
      this.first = grown(this.first, this.count + 1)
      this.last = grown(this.last, this.count + 1)
      this.state = grown(this.state, this.count + 1)
    }
    this.first[this.count] = first
    this.last[this.count] = last
    this.state[this.count] = state
    this.count += 1
  }
}

/** A machine as wink exports it: [version, last state, transitions by state, terminal names, marks, custom properties]. */
type Exported = [number, number, Record<string, Record<string, number>>, Record<string, string>, Record<string, [number, number]>, Record<string, unknown>]

export class Automaton {
  readonly #next: Array<Map<number, number> | undefined> = []
  /** The root's transitions on word lexemes, by lexeme (0: none), when it has many; empty otherwise. */
  readonly #rootWords: Int32Array
  readonly #otherwise: number[] = []
  /** The terminal state's name (wink's terminalStates): what the setters read. */
  readonly name: Array<string | undefined> = []
  readonly #mark: Array<readonly [number, number] | undefined> = []
  /** Tokens recognize() passes over: the lexeme of "\n" (wink's keyLF). */
  readonly #skipped: number

  constructor (json: string, skipped: number) {
    const [, , transitions, terminals, marks] = JSON.parse(json) as Exported
    for (const [state, edges] of Object.entries(transitions)) {
      const next = new Map<number, number>()
      for (const [token, target] of Object.entries(edges)) {
        if (!/^\d+$/.test(token)) throw new Error(`wink automaton: a transition on ${JSON.stringify(token)}, not a lexeme`)
        if (Number(token) === OTHERWISE) this.#otherwise[Number(state)] = target
        else next.set(Number(token), target)
      }
      this.#next[Number(state)] = next
    }
    for (const [state, name] of Object.entries(terminals)) {
      // wink tests a name for truth: an empty one would be no terminal there.
      if (name === '') throw new Error(`wink automaton: terminal state ${state} has an empty name`)
      this.name[Number(state)] = name
    }
    for (const [state, mark] of Object.entries(marks)) this.#mark[Number(state)] = mark
    for (const next of this.#next) {
      for (const target of next?.values() ?? []) {
        if (this.name[target] === undefined && this.#next[target] === undefined) throw new Error(`wink automaton: state ${target} leads nowhere`)
      }
    }
    this.#skipped = skipped
    const root = this.#next[ROOT]
    if (root === undefined) throw new Error('wink automaton: no root state')
    const words = [...root.keys()].filter(token => token < WORDS)
    this.#rootWords = new Int32Array(words.length > DENSE_ROOT ? Math.max(...words) + 1 : 0)
    if (words.length > DENSE_ROOT) for (const token of words) this.#rootWords[token] = root.get(token)!
  }

  #nextState (state: number, token: number): number {
    if (state === ROOT && token < this.#rootWords.length) return this.#rootWords[token]!
    return this.#next[state]!.get(token) ?? ROOT
  }

  /**
   * The matches in `tokens` (as many as `length`), each token read through `transform` if given; wink's recognize(),
   * loop for loop, so that the same matches come out in the same order.
   */
  recognize (tokens: Int32Array, length: number, matches: Matches, transform?: (token: number, at: number) => number): void {
    matches.count = 0
    let first = 0
    let state = ROOT
    let next = ROOT
    let lastOtherwiseIndex = 0
    let lastOtherwiseState = ROOT
    for (let i = 0; i <= length; i += 1) {
      for (let j = i; j <= length; j += 1) {
        let token = j === length ? END : tokens[j]!
        if (token === this.#skipped) continue
        if (transform !== undefined && j < length) token = transform(token, j)
        next = this.#nextState(state, token)
        if (state === ROOT && next !== ROOT) first = j
        if (this.name[next] !== undefined) {
          this.#push(matches, first, j, next)
          i = j
          j = length + 100
          next = ROOT
          lastOtherwiseState = ROOT
        } else if (next === ROOT) {
          if (lastOtherwiseState !== ROOT) {
            this.#push(matches, first, lastOtherwiseIndex, lastOtherwiseState)
            i = lastOtherwiseIndex
            next = ROOT
            lastOtherwiseState = ROOT
          }
          j = length + 100
        }
        state = next
        const otherwise = this.#otherwise[state]
        if (otherwise !== undefined && otherwise !== ROOT) {
          lastOtherwiseIndex = j
          lastOtherwiseState = otherwise
        }
      }
    }
  }

  #push (matches: Matches, first: number, last: number, state: number): void {
    // wink's pushMatch2Patterns: a terminal named "0" is found but not reported.
    if (this.name[state] === '0') return
    const mark = this.#mark[state]
    if (mark === undefined) matches.push(first, last, state)
    else matches.push(first + mark[0], last - mark[1], state)
  }
}
