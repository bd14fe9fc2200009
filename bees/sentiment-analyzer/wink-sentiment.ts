// wink-nlp's document sentiment: readDoc(text).out(its.sentiment) with the pipe ['sbd', 'negation', 'sentiment'], the
// same number to the last bit, without the document readDoc builds around it. The steps are wink-nlp's (readDoc in
// src/wink-nlp.js) and the setters wink-eng-lite-web-model's (dist/*-setter.js and sbd-transformers.js), over its
// own exported automata; test/bees/sentiment-analyzer/wink-sentiment.test.ts compares it with readDoc.
import winkModel from 'wink-eng-lite-web-model'
import { grown } from '../grow.js'
import { Automaton, Matches } from './wink-automaton.js'
import { Lexemes } from './wink-lexicon.js'
import { Tokens } from './wink-tokens.js'

interface Machines { machines: string[] }
const machines = (load: unknown): string[] => (load as () => Machines)().machines

const tokens = new Tokens()
const NEWLINE = tokens.lexemes.indexOf('\n')
const [sentenceMachine, ...others] = machines(winkModel.sbd)
if (sentenceMachine === undefined || others.length > 0) throw new Error('wink-eng-lite-web-model: expected one sentence automaton')
const sentenceAutomaton = new Automaton(sentenceMachine, NEWLINE)
const negationAutomaton = new Automaton(machines(winkModel.negation)[0]!, NEWLINE)
const sentimentAutomaton = new Automaton(machines(winkModel.sa)[0]!, NEWLINE)

// sbd-transformers.js: hints, and abbreviations, become tokens of their own at HINTS + the hint.
const HINTS = 1080000
const AMBIGUOUS_QUOTE = 4
const SPACED_AMBIGUOUS_QUOTE = 6
const LIKELY_END = 7
const NOT_END = 8
/** A negation pattern named "2" marks no scope (negation-setter.js). */
const NO_SCOPE = '2'

const matches = new Matches()
const sentences = new Matches()
let negated = new Uint8Array(64)

function sentenceToken (normal: number, at: number, lexemes: Lexemes): number {
  let hint = lexemes.sbdHint(normal) || lexemes.sbdHint(tokens.lexeme[at]!)
  if (hint === AMBIGUOUS_QUOTE) hint = tokens.spaced[at] === 1 ? SPACED_AMBIGUOUS_QUOTE : AMBIGUOUS_QUOTE
  if (hint !== 0) return HINTS + hint
  return lexemes.isAbbrev(normal) ? HINTS + (lexemes.length(normal) === 2 ? NOT_END : LIKELY_END) : normal
}
const transform = (normal: number, at: number): number => sentenceToken(normal, at, tokens.lexemes)

/** sbd-setter.js: sentences end at each match's first token; the last one, or two, run to the end. */
function splitSentences (count: number): void {
  sentences.count = 0
  let start = 0
  let end = count - 1
  for (let i = 0; i < matches.count; i += 1) {
    end = matches.first[i]!
    if (i < matches.count - 1) {
      sentences.push(start, end, 0)
      start = end + 1
      end = count - 1
    }
  }
  sentences.push(start, end, 0)
  if (end < count - 1) sentences.push(end + 1, count - 1, 0)
}

/** wink's search(): the sentence holding token `at`. */
function sentenceOf (at: number): number {
  let min = 0
  let max = sentences.count - 1
  while (min <= max) {
    const middle = (min + max) / 2 | 0
    if (at > sentences.last[middle]!) min = middle + 1
    else if (at < sentences.first[middle]!) max = middle - 1
    else return middle
  }
  // wink reads sentences[null] here and throws.
  throw new TypeError(`wink sentiment: token ${at} is in no sentence`)
}

/** wink's locate(): the span holding `at`, or a half-index between the two it falls between. */
function locate (at: number, spans: Matches): number {
  let min = 0
  let max = spans.count - 1
  let edge = -1
  while (min <= max) {
    const middle = (min + max) / 2 | 0
    if (at > spans.last[middle]!) {
      min = middle + 1
      edge = middle + 0.5
    } else if (at < spans.first[middle]!) {
      max = middle - 1
      edge = middle - 0.5
    } else return middle
  }
  return edge
}

/** negation-setter.js: a negation marks the tokens after it up to the next negation or the end of its sentence. */
function markNegations (count: number): void {
  negated = grown(negated, count + 1)
  negated.fill(0, 0, count + 1)
  const { first, last, state } = matches
  for (let k = 0; k < matches.count;) {
    if (negationAutomaton.name[state[k]!] === NO_SCOPE) {
      k += 1
      continue
    }
    const from = last[k]! + 1
    let to = sentences.last[sentenceOf(last[k]!)]!
    k += 1
    if (k < matches.count) to = to < first[k]! ? to : first[k]!
    else to += 1
    for (let i = from; i < to; i += 1) if (!tokens.lexemes.unnegated(tokens.lexeme[i]!)) negated[i] = 1
  }
}

/** sa-setter.js: each sentence's mean score over its matches (a negated one counts against), the text's the mean over sentences. */
function documentScore (): number {
  const { first, state } = matches
  let total = 0
  for (let k = 0; k < matches.count;) {
    const sentence = Math.ceil(locate(first[k]!, sentences))
    // wink reads sentences[sentence][1] here and throws.
    if (sentence >= sentences.count) throw new TypeError(`wink sentiment: a match at token ${first[k]!} is past the last sentence`)
    const end = Math.floor(locate(sentences.last[sentence]!, matches))
    let sum = 0
    for (let i = k; i <= end; i += 1) {
      const score = +sentimentAutomaton.name[state[i]!]! / 1e3
      if (negated[first[i]!] === 1) sum -= score
      else sum += score
    }
    total += sum / (end - k + 1)
    k = end + 1
  }
  return total / sentences.count
}

/** readDoc(text).out(its.sentiment), as a new process reads the text. */
export function winkSentiment (text: string): number {
  tokens.read(text)
  const count = tokens.length
  sentenceAutomaton.recognize(tokens.normal, count, matches, transform)
  splitSentences(count)
  negationAutomaton.recognize(tokens.normal, count, matches)
  markNegations(count)
  sentimentAutomaton.recognize(tokens.normal, count, matches)
  return documentScore()
}
