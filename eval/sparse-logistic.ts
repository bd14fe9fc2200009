// L2-regularised logistic regression over sparse binary word features plus a
// few dense ones, fitted by full-batch AdaGrad. Full batches in a fixed order
// make the fit a pure function of its input, so a rerun reproduces the shipped
// weights exactly.

export interface Example {
  dense: readonly number[]
  words: readonly string[]
  /** Target probability that the rating is positive, in [0, 1] (1 or 0 for a hard label). */
  positive: number
  weight: number
}

export interface LogisticFit { dense: number[]; words: Map<string, number> }

export interface FitOptions {
  /** Penalty on the word weights only: the few dense ones are well determined. */
  lambda: number
  iterations: number
  /** Words seen in fewer training texts than this get no weight. */
  minCount: number
}

const LEARNING_RATE = 0.5

export function fitSparseLogistic (examples: readonly Example[], options: FitOptions): LogisticFit {
  const denseCount = examples[0]?.dense.length ?? 0
  const vocabulary = wordIds(examples, options.minCount, denseCount)
  const rows = examples.map(e => ({ ...e, ids: e.words.flatMap(word => vocabulary.get(word) ?? []) }))
  const size = denseCount + vocabulary.size
  const w = new Float64Array(size)
  const squaredGradients = new Float64Array(size).fill(1e-8)
  const totalWeight = examples.reduce((sum, e) => sum + e.weight, 0)
  for (let iteration = 0; iteration < options.iterations; iteration++) {
    const gradient = new Float64Array(size)
    for (const row of rows) {
      let z = 0
      for (let i = 0; i < denseCount; i++) z += w[i]! * row.dense[i]!
      for (const id of row.ids) z += w[id]!
      const error = row.weight * (1 / (1 + Math.exp(-z)) - row.positive) / totalWeight
      for (let i = 0; i < denseCount; i++) gradient[i]! += error * row.dense[i]!
      for (const id of row.ids) gradient[id]! += error
    }
    for (let i = denseCount; i < size; i++) gradient[i]! += options.lambda * w[i]!
    for (let i = 0; i < size; i++) {
      squaredGradients[i]! += gradient[i]! ** 2
      w[i]! -= LEARNING_RATE * gradient[i]! / Math.sqrt(squaredGradients[i]!)
    }
  }
  return {
    dense: Array.from(w.subarray(0, denseCount)),
    words: new Map([...vocabulary].map(([word, id]) => [word, w[id]!]))
  }
}

function wordIds (examples: readonly Example[], minCount: number, offset: number): Map<string, number> {
  const counts = new Map<string, number>()
  for (const e of examples) for (const word of e.words) counts.set(word, (counts.get(word) ?? 0) + 1)
  const ids = new Map<string, number>()
  for (const [word, count] of counts) if (count >= minCount) ids.set(word, offset + ids.size)
  return ids
}
