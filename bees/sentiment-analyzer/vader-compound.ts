// VADER's compound score as vader-sentiment 1.1.3 computes it, to the last bit, in one pass over the tokens.
//
// Why a port: the library builds a table of every word glued to each of its 17 punctuation marks for every call,
// copies its 59 negations three times for each lexicon word, builds about seven strings for each idiom check and
// lower-cases one word up to ten times: about 15 µs of the bench's 11-word sentence. The rules below are the library's
// (src/vaderSentiment.js), step for step and in the same floating-point order, over the same lexicon; the library
// itself stays, as the reference test/bees/sentiment-analyzer compares this with on every eval text and on
// generated text.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { isWhiteSpaceAt } from '../white-space.js'
import { grown } from '../grow.js'

const B_INCR = 0.293
const B_DECR = -0.293
const C_INCR = 0.733
const N_SCALAR = -0.74

/**
 * The package's vader_lexicon.txt (word, mean valence, standard deviation, ratings; tab-separated), as its bundle's
 * table has it: a word listed twice keeps its last valence. Read where the package is installed, as the wink model is.
 */
function readLexicon (): Map<string, number> {
  const file = createRequire(import.meta.url).resolve('vader-sentiment/vader_lexicon.txt')
  const lexicon = new Map<string, number>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue
    const [word, valence] = line.split('\t')
    const value = Number(valence)
    if (word === undefined || valence === undefined || Number.isNaN(value)) throw new Error(`vader_lexicon.txt: malformed line ${JSON.stringify(line.slice(0, 40))}`)
    lexicon.set(word, value)
  }
  return lexicon
}

const NEGATE = new Set([
  'aint', 'arent', 'cannot', 'cant', 'couldnt', 'darent', 'didnt', 'doesnt', "ain't", "aren't", "can't", "couldn't",
  "daren't", "didn't", "doesn't", 'dont', 'hadnt', 'hasnt', 'havent', 'isnt', 'mightnt', 'mustnt', 'neither', "don't",
  "hadn't", "hasn't", "haven't", "isn't", "mightn't", "mustn't", 'neednt', "needn't", 'never', 'none', 'nope', 'nor',
  'not', 'nothing', 'nowhere', 'oughtnt', 'shant', 'shouldnt', 'uhuh', 'wasnt', 'werent', "oughtn't", "shan't",
  "shouldn't", 'uh-uh', "wasn't", "weren't", 'without', 'wont', 'wouldnt', "won't", "wouldn't", 'rarely', 'seldom',
  'despite'
])
const BOOSTERS = new Map<string, number>([
  ...['absolutely', 'amazingly', 'awfully', 'completely', 'considerably', 'decidedly', 'deeply', 'effing', 'enormously',
    'entirely', 'especially', 'exceptionally', 'extremely', 'fabulously', 'flipping', 'flippin', 'fricking', 'frickin',
    'frigging', 'friggin', 'fully', 'fucking', 'greatly', 'hella', 'highly', 'hugely', 'incredibly', 'intensely',
    'majorly', 'more', 'most', 'particularly', 'purely', 'quite', 'really', 'remarkably', 'so', 'substantially',
    'thoroughly', 'totally', 'tremendously', 'uber', 'unbelievably', 'unusually', 'utterly', 'very'].map(word => [word, B_INCR] as const),
  ...['almost', 'barely', 'hardly', 'just enough', 'kind of', 'kinda', 'kindof', 'kind-of', 'less', 'little',
    'marginally', 'occasionally', 'partly', 'scarcely', 'slightly', 'somewhat', 'sort of', 'sorta', 'sortof',
    'sort-of'].map(word => [word, B_DECR] as const)
])
const IDIOMS = new Map([
  ['the shit', 3], ['the bomb', 3], ['bad ass', 1.5], ['yeah right', -2], ['cut the mustard', 2], ['kiss of death', -1.5],
  ['hand to mouth', -2]
])
/** The words of the idioms and of the two-word boosters: a sequence with any other word is neither. */
const IDIOM_WORDS = new Set([...IDIOMS.keys(), ...[...BOOSTERS.keys()].filter(key => key.includes(' '))].flatMap(key => key.split(' ')))

/**
 * What the rules ask of a lower-cased word, found with one look-up: its valence (NaN if the lexicon has none), its
 * booster scalar (0 if it is none), and whether, as written in lower case, it is a negation or a word of an idiom
 * (those rules read the token as written, and all their words are lower case).
 */
interface Word { valence: number, booster: number, negation: boolean, idiomWord: boolean }
const WORDS = new Map<string, Word>()
{
  // The lexicon itself is not kept: each of its words is in WORDS.
  const lexicon = readLexicon()
  for (const word of new Set([...lexicon.keys(), ...BOOSTERS.keys(), ...NEGATE, ...IDIOM_WORDS])) {
    WORDS.set(word, { valence: lexicon.get(word) ?? NaN, booster: BOOSTERS.get(word) ?? 0, negation: NEGATE.has(word), idiomWord: IDIOM_WORDS.has(word) })
  }
}

// PUNC_LIST: the marks a token loses from one end when what is left is a word of the text.
const PUNC_LIST = ['.', '!', '?', ',', ';', ':', '-', "'", '"', '!!', '!!!', '??', '???', '?!?', '!?!', '?!?!', '!?!?']
const PUNC_EDGES = new Uint8Array(128)
for (const mark of PUNC_LIST) PUNC_EDGES[mark.charCodeAt(0)] = PUNC_EDGES[mark.charCodeAt(mark.length - 1)] = 1
const isPuncEdge = (code: number): boolean => code < 128 && PUNC_EDGES[code] === 1

/**
 * VADER's compound score; how many of the text's tokens its lexicon gave a valence (its general sentiment words); and
 * its emphasis on them, by the two rules with which VADER strengthens a valence: sentiment words in capitals amid
 * lower-case text, and exclamation marks in text that has a sentiment word, each counted up to EMPHASIS_CAP. The
 * capitals of code and logs ("SELECT", "INFO") are no sentiment word's, so they are no emphasis.
 */
export interface VaderScore {
  compound: number
  sentimentTokens: number
  emphasis: number
  /** The text's white-space separated words (what /\S+/g counts): VADER's tokens before it drops those of one code unit. */
  words: number
}

/** Past three of either cue a text is no more emphatic to the calibration: a run of "!!!!!!" is one shout. */
export const EMPHASIS_CAP = 3

// One text's tokens (SentiText.words_and_emoticons), reused from call to call: index i < count is token i.
const words: string[] = []
const lower: string[] = []
/** The lexicon's valence of the lower-cased token; NaN for a token it does not have. */
let valenceOf = new Float64Array(64)
/** The booster scalar of the lower-cased token; 0 for a token that is no booster. */
let boosterOf = new Float64Array(64)
let sentiments = new Float64Array(64)
/** UPPER: str.isupper(); NEGATED: negated([token]); IDIOM_WORD: a word of an idiom or two-word booster, as written. */
let flags = new Uint8Array(64)
const UPPER = 1
const NEGATED = 2
const IDIOM_WORD = 4
let count = 0
/** The text's runs of non-white-space, what /\S+/g would count (the pieces of one code unit too). */
let pieces = 0

/** Whether a piece has an ASCII punctuation mark: the library's words of the text (REGEX_REMOVE_PUNCTUATION) have none. */
function hasAsciiPunctuation (piece: string): boolean {
  for (let i = 0; i < piece.length; i++) {
    const code = piece.charCodeAt(i)
    if ((code >= 33 && code <= 47) || (code >= 58 && code <= 64) || (code >= 91 && code <= 96) || (code >= 123 && code <= 126)) return true
  }
  return false
}

/**
 * SentiText's token: the library maps "<mark><word>" and "<word><mark>" to the word for every word of the text with
 * its ASCII punctuation removed (longer than one character). What is left of a token after one mark is such a word
 * exactly when it has no ASCII punctuation and is longer than one character: the token itself, stripped, is that word.
 */
function stripListedMark (token: string): string {
  for (const mark of PUNC_LIST) {
    if (token.startsWith(mark)) {
      const rest = token.slice(mark.length)
      if (rest.length > 1 && !hasAsciiPunctuation(rest)) return rest
    }
    if (token.endsWith(mark)) {
      const rest = token.slice(0, -mark.length)
      if (rest.length > 1 && !hasAsciiPunctuation(rest)) return rest
    }
  }
  return token
}

/** Python's str.isupper(), as the library implements it (/^[^a-z]*[A-Z]+[^a-z]*$/). */
function isUpper (word: string): boolean {
  let capital = false
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i)
    if (code >= 97 && code <= 122) return false
    if (code >= 65 && code <= 90) capital = true
  }
  return capital
}

function addToken (token: string): void {
  if (count === sentiments.length) {
    valenceOf = grown(valenceOf, count + 1)
    boosterOf = grown(boosterOf, count + 1)
    sentiments = grown(sentiments, count + 1)
    flags = grown(flags, count + 1)
  }
  const word = isPuncEdge(token.charCodeAt(0)) || isPuncEdge(token.charCodeAt(token.length - 1)) ? stripListedMark(token) : token
  const lowered = word.toLowerCase()
  const known = WORDS.get(lowered)
  const asWritten = word === lowered
  words[count] = word
  lower[count] = lowered
  valenceOf[count] = known === undefined ? NaN : known.valence
  boosterOf[count] = known === undefined ? 0 : known.booster
  // negated([word]): a negation word, or any word with "n't" ("least" needs a word before it, which one word has not).
  flags[count] = (isUpper(word) ? UPPER : 0) | ((asWritten && known?.negation === true) || word.includes("n't") ? NEGATED : 0) |
    (asWritten && known?.idiomWord === true ? IDIOM_WORD : 0)
  count += 1
}

/** SentiText.words_and_emoticons: the white-space pieces longer than one code unit, each without a listed mark. */
function tokenize (text: string): void {
  count = 0
  pieces = 0
  let start = 0
  for (let i = 0; i <= text.length; i++) {
    // The library splits on \s.
    if (i < text.length && !isWhiteSpaceAt(text, i)) continue
    if (i > start) pieces += 1
    if (i - start > 1) addToken(text.slice(start, i))
    start = i + 1
  }
}

const has = (at: number, flag: number): boolean => (flags[at]! & flag) !== 0
const negated = (at: number): boolean => has(at, NEGATED)

function scalarIncDec (at: number, valence: number, capDifferential: boolean): number {
  const booster = boosterOf[at]!
  if (booster === 0) return 0
  let scalar = booster
  if (valence < 0) scalar *= -1
  if (capDifferential && has(at, UPPER)) {
    if (valence > 0) scalar += C_INCR
    else scalar -= C_INCR
  }
  return scalar
}

const isSoOrThis = (word: string | undefined): boolean => word === 'so' || word === 'this'

function neverCheck (valence: number, startI: number, index: number): number {
  if (startI === 0) {
    if (negated(index - 1)) valence = valence * N_SCALAR
  } else if (startI === 1) {
    if (words[index - 2] === 'never' && isSoOrThis(words[index - 1])) valence = valence * 1.5
    else if (negated(index - 2)) valence = valence * N_SCALAR
  } else {
    if ((words[index - 3] === 'never' && isSoOrThis(words[index - 2])) || isSoOrThis(words[index - 1])) valence = valence * 1.25
    else if (negated(index - 3)) valence = valence * N_SCALAR
  }
  return valence
}

/** The tokens from..to joined by spaces, when all are words of an idiom or a two-word booster; otherwise null. */
function sequence (from: number, to: number): string | null {
  for (let i = from; i <= to; i++) if (!has(i, IDIOM_WORD)) return null
  let joined = words[from]!
  for (let i = from + 1; i <= to; i++) joined += ' ' + words[i]!
  return joined
}

const idiom = (from: number, to: number): number | undefined => {
  const joined = sequence(from, to)
  return joined === null ? undefined : IDIOMS.get(joined)
}

const twoWordBooster = (from: number): boolean => {
  const joined = sequence(from, from + 1)
  return joined !== null && BOOSTERS.has(joined)
}

function idiomsCheck (valence: number, index: number): number {
  const before = idiom(index - 1, index) ?? idiom(index - 2, index) ?? idiom(index - 2, index - 1) ?? idiom(index - 3, index - 1) ??
    idiom(index - 3, index - 2)
  if (before !== undefined) valence = before
  if (count - 1 > index) valence = idiom(index, index + 1) ?? valence
  if (count - 1 > index + 1) valence = idiom(index, index + 2) ?? valence
  if (twoWordBooster(index - 3) || twoWordBooster(index - 2)) valence = valence + B_DECR
  return valence
}

function leastCheck (valence: number, index: number): number {
  if (index > 1 && lower[index - 1] === 'least' && Number.isNaN(valenceOf[index - 1])) {
    if (lower[index - 2] !== 'at' && lower[index - 2] !== 'very') valence = valence * N_SCALAR
  } else if (index > 0 && lower[index - 1] === 'least' && Number.isNaN(valenceOf[index - 1])) {
    valence = valence * N_SCALAR
  }
  return valence
}

function sentimentValence (index: number, capDifferential: boolean): number {
  let valence = valenceOf[index]!
  if (Number.isNaN(valence)) return 0
  if (has(index, UPPER) && capDifferential) {
    if (valence > 0) valence += C_INCR
    else valence -= C_INCR
  }
  for (let startI = 0; startI < 3; startI++) {
    const before = index - (startI + 1)
    if (index > startI && Number.isNaN(valenceOf[before])) {
      let s = scalarIncDec(before, valence, capDifferential)
      if (startI === 1 && s !== 0) s = s * 0.95
      else if (startI === 2 && s !== 0) s = s * 0.9
      valence = valence + s
      valence = neverCheck(valence, startI, index)
      if (startI === 2) valence = idiomsCheck(valence, index)
    }
  }
  return leastCheck(valence, index)
}

function countOf (text: string, mark: string): number {
  let found = 0
  for (let i = text.indexOf(mark); i !== -1; i = text.indexOf(mark, i + 1)) found += 1
  return found
}

/** punctuation_emphasis: up to four "!", and two or more "?". */
function punctuationEmphasis (exclamations: number, questions: number): number {
  const epAmplifier = Math.min(exclamations, 4) * 0.292
  const qmAmplifier = questions > 1 ? (questions <= 3 ? questions * 0.18 : 0.96) : 0
  return epAmplifier + qmAmplifier
}

export function vaderScore (text: string): VaderScore {
  tokenize(text)
  let allCaps = 0
  for (let i = 0; i < count; i++) if (has(i, UPPER)) allCaps += 1
  // allcap_differential: some tokens in capitals, not all.
  const capDifferential = allCaps > 0 && allCaps < count
  let sentimentTokens = 0
  let capitals = 0
  for (let i = 0; i < count; i++) {
    const boosterOrKindOf = (i < count - 1 && lower[i] === 'kind' && lower[i + 1] === 'of') || boosterOf[i] !== 0
    const valence = boosterOrKindOf ? 0 : sentimentValence(i, capDifferential)
    sentiments[i] = valence
    if (valence === 0) continue
    sentimentTokens += 1
    if (capDifferential && has(i, UPPER)) capitals += 1
  }
  const exclamations = countOf(text, '!')
  return {
    compound: compound(text, exclamations),
    sentimentTokens,
    emphasis: Math.min(EMPHASIS_CAP, sentimentTokens === 0 ? 0 : exclamations) + Math.min(EMPHASIS_CAP, capitals),
    words: pieces
  }
}

/** but_check, then score_valence's compound. */
function compound (text: string, exclamations: number): number {
  if (count === 0) return 0
  let but = firstOf('but')
  if (but === -1) but = firstOf('BUT')
  let sum = 0
  for (let i = 0; i < count; i++) {
    if (but !== -1 && i < but) sentiments[i] = sentiments[i]! * 0.5
    else if (but !== -1 && i > but) sentiments[i] = sentiments[i]! * 1.5
    sum += sentiments[i]!
  }
  const emphasis = punctuationEmphasis(exclamations, countOf(text, '?'))
  if (sum > 0) sum += emphasis
  else if (sum < 0) sum -= emphasis
  let normalized = sum / Math.sqrt(sum * sum + 15)
  if (normalized < -1) normalized = -1
  else if (normalized > 1) normalized = 1
  return fourPlaces(normalized)
}

/**
 * parseFloat(x.toFixed(4)) without the string, which took most of the compound's time. Away from a tie, the integer
 * nearest x · 10⁴ is Math.round of the product as a double (within 2⁻³⁹ of it for |x| ≤ 1), and that integer over 10⁴
 * is the double nearest the 4-place decimal, as parseFloat reads it; a zero (toFixed drops the sign of -0) and products
 * within 10⁻⁶ of a tie take toFixed's own exact rule.
 */
export function fourPlaces (x: number): number {
  const scaled = x * 10000
  if (x === 0 || Math.abs(Math.abs(scaled - Math.trunc(scaled)) - 0.5) < 1e-6) return parseFloat(x.toFixed(4))
  return Math.round(scaled) / 10000
}

function firstOf (word: string): number {
  for (let i = 0; i < count; i++) if (words[i] === word) return i
  return -1
}

export const vaderCompound = (text: string): number => vaderScore(text).compound
