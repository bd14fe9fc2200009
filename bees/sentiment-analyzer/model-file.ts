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
 * weights plain and negated ("~word"), NaN where the model has none. The words go in by their place in vectorWords,
 * found through a table of those, so that the load makes no Map of 100,000 words.
 */
function unigramTable (file: SentimentModelFile): WordTable {
  const vectorWords = parallelTable(file.vectorWords, file.vectorWeights, 'vector words')
  const others = new Map<string, number>()
  const keys = [...file.vectorWords]
  const indexOf = (word: string): number => {
    const found = vectorWords.indexOf(word)
    if (found !== -1) return found
    let other = others.get(word)
    if (other === undefined) {
      other = keys.push(word) - 1
      others.set(word, other)
    }
    return other
  }
  const unigram = (key: string): boolean => !key.includes(' ')
  const placed = file.words.map(key => unigram(key) ? indexOf(key.charCodeAt(0) === 126 ? key.slice(1) : key) : -1)
  const values = new Float64Array(keys.length * UNIGRAM_COLUMNS).fill(NaN)
  file.vectorWeights.forEach((weight, i) => { values[i * UNIGRAM_COLUMNS + VECTOR] = weight })
  file.words.forEach((key, i) => {
    if (placed[i] === -1) return
    values[placed[i]! * UNIGRAM_COLUMNS + (key.charCodeAt(0) === 126 ? NEGATED : PLAIN)] = file.weights[i]!
  })
  return new WordTable(keys, values, UNIGRAM_COLUMNS)
}
