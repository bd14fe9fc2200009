// The JSON form of a SentimentModel (sentiment-model.json), written by
// eval/tune-sentiment.ts. Words and weights are parallel arrays: a JSON object
// with tens of thousands of keys would make TypeScript infer a type as large.
import type { SentimentModel } from './model.js'

export interface SentimentModelFile {
  vaderWeight: number
  neutralBand: number
  neutralConfidence: number
  dense: number[]
  scale: number
  shift: number
  words: string[]
  weights: number[]
}

export function fromFile (file: SentimentModelFile): SentimentModel {
  if (file.words.length !== file.weights.length) throw new Error('sentiment model: words and weights differ in length')
  const words = new Map(file.words.map((word, i) => [word, file.weights[i]!]))
  const { vaderWeight, neutralBand, neutralConfidence, dense, scale, shift } = file
  return { vaderWeight, neutralBand, neutralConfidence, confidence: { dense, words, scale, shift } }
}
