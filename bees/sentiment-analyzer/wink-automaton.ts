// wink-nlp's pattern automaton (wink-nlp/src/automaton.js): recognize(), for machines run without a pattern swap, over
// the same exported machines, with the states in typed arrays instead of objects keyed by strings.

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

/** Sorts one state's edges from..to by token (insertion: a state has few, and JSON keeps integer keys in order anyway). */
function sortEdges (tokens: Int32Array, targets: Int32Array, from: number, to: number): void {
  for (let i = from + 1; i < to; i++) {
    const token = tokens[i]!
    const target = targets[i]!
    let j = i - 1
    for (; j >= from && tokens[j]! > token; j--) {
      tokens[j + 1] = tokens[j]!
      targets[j + 1] = targets[j]!
    }
    tokens[j + 1] = token
    targets[j + 1] = target
  }
}

/** A machine as wink exports it: [version, last state, transitions by state, terminal names, marks, custom properties]. */
type Exported = [number, number, Record<string, Record<string, number>>, Record<string, string>, Record<string, [number, number]>, Record<string, unknown>]

/**
 * A machine's transitions in flat arrays, sorted by token within each state, and the root's on word lexemes also by
 * lexeme when it has many (the sentiment automaton's 8,205). A Map per state, built from arrays of entries, held about
 * as much heap as the objects wink keeps and left about 18 MB of RSS behind the load's garbage.
 */
export class Automaton {
  /** State s's transitions are edges edgeStart[s] to edgeStart[s + 1] - 1; a state without transitions has none. */
  readonly #edgeStart: Int32Array
  readonly #edgeToken: Int32Array
  readonly #edgeTarget: Int32Array
  /** The root's transition on each word lexeme (0: none), when it has more than DENSE_ROOT; empty otherwise. */
  readonly #rootWords: Int32Array
  /**
   * Otherwise, a bit for each word lexeme the root has a transition on: every token of a text starts at the root, and
   * most have none there, told without a binary search of its edges (the negation automaton's 46).
   */
  readonly #rootHas: Int32Array
  /** The state's "otherwise" transition; 0 for none. */
  readonly #otherwise: Int32Array
  /** The terminal state's name (wink's terminalStates): what the setters read. */
  readonly name: Array<string | undefined>
  readonly #mark = new Map<number, readonly [number, number]>()
  /** Tokens recognize() passes over: the lexeme of "\n" (wink's keyLF). */
  readonly #skipped: number

  constructor (json: string, skipped: number) {
    const [, lastState, transitions, terminals, marks] = JSON.parse(json) as Exported
    const states = lastState + 1
    // Two passes over the parsed machine, and no array per edge or entry: the load makes little garbage.
    this.#edgeStart = new Int32Array(states + 1)
    this.#otherwise = new Int32Array(states)
    const hasTransitions = new Uint8Array(states)
    for (const state in transitions) {
      hasTransitions[Number(state)] = 1
      for (const token in transitions[state]) {
        if (!/^\d+$/.test(token)) throw new Error(`wink automaton: a transition on ${JSON.stringify(token)}, not a lexeme`)
        if (Number(token) !== OTHERWISE) this.#edgeStart[Number(state) + 1]! += 1
      }
    }
    for (let state = 0; state < states; state++) this.#edgeStart[state + 1]! += this.#edgeStart[state]!
    this.#edgeToken = new Int32Array(this.#edgeStart[states]!)
    this.#edgeTarget = new Int32Array(this.#edgeStart[states]!)
    const filled = this.#edgeStart.slice(0, states)
    for (const state in transitions) {
      const next = transitions[state]!
      for (const token in next) {
        const target = next[token]!
        if (Number(token) === OTHERWISE) this.#otherwise[Number(state)] = target
        else {
          const at = filled[Number(state)]!++
          this.#edgeToken[at] = Number(token)
          this.#edgeTarget[at] = target
        }
      }
      sortEdges(this.#edgeToken, this.#edgeTarget, this.#edgeStart[Number(state)]!, filled[Number(state)]!)
    }
    this.name = new Array<string | undefined>(states).fill(undefined)
    for (const state in terminals) {
      const name = terminals[state]!
      // wink tests a name for truth: an empty one would be no terminal there.
      if (name === '') throw new Error(`wink automaton: terminal state ${state} has an empty name`)
      this.name[Number(state)] = name
    }
    for (const state in marks) this.#mark.set(Number(state), marks[state]!)
    for (const target of this.#edgeTarget) {
      if (this.name[target] === undefined && hasTransitions[target] !== 1) throw new Error(`wink automaton: state ${target} leads nowhere`)
    }
    if (hasTransitions[ROOT] !== 1) throw new Error('wink automaton: no root state')
    this.#skipped = skipped
    let words = 0
    let largest = 0
    for (let at = this.#edgeStart[ROOT]!; at < this.#edgeStart[ROOT + 1]!; at++) {
      if (this.#edgeToken[at]! >= WORDS) continue
      words += 1
      largest = Math.max(largest, this.#edgeToken[at]!)
    }
    const dense = words > DENSE_ROOT
    this.#rootWords = new Int32Array(dense ? largest + 1 : 0)
    this.#rootHas = new Int32Array(dense || words === 0 ? 0 : (largest >> 5) + 1)
    for (let at = this.#edgeStart[ROOT]!; at < this.#edgeStart[ROOT + 1]!; at++) {
      const token = this.#edgeToken[at]!
      if (token >= WORDS) continue
      if (dense) this.#rootWords[token] = this.#edgeTarget[at]!
      else this.#rootHas[token >> 5]! |= 1 << (token & 31)
    }
  }

  /** The state `token` leads to from `state`; the root if none. */
  #nextState (state: number, token: number): number {
    if (state === ROOT && token < WORDS) {
      if (token < this.#rootWords.length) return this.#rootWords[token]!
      // A dense root has every word transition in #rootWords, and #rootHas empty.
      if (token >> 5 >= this.#rootHas.length || (this.#rootHas[token >> 5]! & (1 << (token & 31))) === 0) return ROOT
    }
    let low = this.#edgeStart[state]!
    let high = this.#edgeStart[state + 1]! - 1
    while (low <= high) {
      const middle = (low + high) >> 1
      const found = this.#edgeToken[middle]!
      if (found === token) return this.#edgeTarget[middle]!
      if (found < token) low = middle + 1
      else high = middle - 1
    }
    return ROOT
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
        const otherwise = this.#otherwise[state]!
        if (otherwise !== ROOT) {
          lastOtherwiseIndex = j
          lastOtherwiseState = otherwise
        }
      }
    }
  }

  #push (matches: Matches, first: number, last: number, state: number): void {
    // wink's pushMatch2Patterns: a terminal named "0" is found but not reported.
    if (this.name[state] === '0') return
    const mark = this.#mark.get(state)
    if (mark === undefined) matches.push(first, last, state)
    else matches.push(first + mark[0], last - mark[1], state)
  }
}
