// The JSON form of a SentimentModel (sentiment-model.json), written by
// eval/tune-sentiment.ts. Words and weights are parallel arrays: a JSON object
// with tens of thousands of keys would make TypeScript infer a type as large.
import type { ScoreBlend, SentimentModel, WordWeights } from './model.js'
import { NEGATED, PLAIN, UNIGRAM_COLUMNS, VECTOR } from './model.js'
import { WordTable } from './word-table.js'

export interface SentimentModelFile extends ScoreBlend {
  neutralConfidence: number
  dense: number[]
  calibration: number[]
  words: string[]
  weights: number[]
  /** Words with a projected GloVe vector (see WordModel.vectors), parallel to vectorWeights. */
  vectorWords: string[]
  vectorWeights: number[]
}

export function fromFile (file: SentimentModelFile): SentimentModel {
  const words = parallelTable(file.words, file.weights, 'words')
  const unigrams = unigramTable(file)
  // The vectors are the unigram table's column: a word it has for its weights alone has none.
  const vectors: WordWeights = {
    get (word) {
      const at = unigrams.indexOf(word)
      const vector = at === -1 ? NaN : unigrams.valueAt(at, VECTOR)
      return Number.isNaN(vector) ? undefined : vector
    }
  }
  const { vaderWeight, learnedShare, learnedShareSocial, learnedScale, silentThreshold, neutralConfidence, dense, calibration } = file
  return {
    vaderWeight,
    learnedShare,
    learnedShareSocial,
    learnedScale,
    silentThreshold,
    neutralConfidence,
    learned: { dense, words, vectors, unigrams, calibration }
  }
}

function parallelTable (keys: readonly string[], values: readonly number[], what: string): WordTable {
  if (keys.length !== values.length) throw new Error(`sentiment model: ${what} and their weights differ in length`)
  return new WordTable(keys, values)
}

/**
 * WordModel.unigrams: every vector word, then every other word of a unigram feature, each with its vector and its
 * weights plain and negated ("~word"), NaN where the model has none. Only the unigram features' words (about 10,300)
 * go in a Map, to find their places: no table or Map of all 100,000 is made to be thrown away.
 */
function unigramTable (file: SentimentModelFile): WordTable {
  const isUnigram = (key: string): boolean => !key.includes(' ')
  const isNegated = (key: string): boolean => key.charCodeAt(0) === 126
  const wordOf = (key: string): string => isNegated(key) ? key.slice(1) : key
  const place = new Map<string, number>()
  for (const key of file.words) if (isUnigram(key)) place.set(wordOf(key), -1)
  const keys = [...file.vectorWords]
  keys.forEach((word, i) => { if (place.has(word)) place.set(word, i) })
  for (const [word, at] of place) if (at === -1) place.set(word, keys.push(word) - 1)
  const values = new Float64Array(keys.length * UNIGRAM_COLUMNS).fill(NaN)
  if (file.vectorWeights.length !== file.vectorWords.length) throw new Error('sentiment model: vector words and their weights differ in length')
  file.vectorWeights.forEach((weight, i) => { values[i * UNIGRAM_COLUMNS + VECTOR] = weight })
  file.words.forEach((key, i) => {
    if (isUnigram(key)) values[place.get(wordOf(key))! * UNIGRAM_COLUMNS + (isNegated(key) ? NEGATED : PLAIN)] = file.weights[i]!
  })
  return new WordTable(keys, values, UNIGRAM_COLUMNS)
}
