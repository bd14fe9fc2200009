// The JSON form of a SentimentModel (sentiment-model.json), written by
// eval/tune-sentiment.ts. Words and weights are parallel arrays: a JSON object
// with tens of thousands of keys would make TypeScript infer a type as large.
import type { ScoreBlend, SentimentModel } from './model.js'
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
  const vectors = parallelTable(file.vectorWords, file.vectorWeights, 'vector words')
  const { vaderWeight, learnedShare, learnedShareSocial, learnedScale, silentThreshold, neutralConfidence, dense, calibration } = file
  return {
    vaderWeight,
    learnedShare,
    learnedShareSocial,
    learnedScale,
    silentThreshold,
    neutralConfidence,
    learned: { dense, words, vectors, calibration }
  }
}

function parallelTable (keys: readonly string[], values: readonly number[], what: string): WordTable {
  if (keys.length !== values.length) throw new Error(`sentiment model: ${what} and their weights differ in length`)
  return new WordTable(keys, values)
}
