/*
 * TextRank (Mihalcea & Tarau 2004) with TF-IDF cosine edge weights, i.e. continuous LexRank (Erkan & Radev 2004):
 * sentences are nodes, every pair is joined by the cosine of their TF-IDF vectors, and a sentence's centrality is its
 * PageRank on that graph.
 *
 * The random jump is uniform. A jump weighted towards the opening (1 / (i + 1), as in PositionRank) looked right for
 * news, but on the tuning part of the news set (eval/data/news) it cost 1.3 to 1.9 points of ROUGE-1/2/L at 150
 * words: the reference extracts take most of their text from the article's body, not its opening.
 *
 * The n x n graph is never built. With the sentence vectors as the rows of a sparse matrix V (unit length), the graph
 * is W = V·Vᵀ minus its diagonal, so one PageRank step, W·x, is V·(Vᵀ·x) − x: two passes over the non-zero entries
 * of V. Each iteration costs time linear in the number of words, for the exact full graph, so no sentence has to be
 * left out however long the text is.
 */

import { grown, trimmed } from '../grow.js'
import type { TermRows } from './term-rows.js'

const DAMPING = 0.85
const MAX_ITERATIONS = 100
// Stop once no sentence's share moves by more than a millionth of the average share.
const TOLERANCE = 1e-6
// A sentence sharing no term with any other one has no edges; its mass follows the random jump, as in PageRank.
const NO_EDGES = 1e-12

/**
 * The sentence vectors as the rows of V: row i is entries rowStart[i]..rowStart[i + 1] - 1, entry k the term column[k]
 * with weight[k]. A term no other row has (most terms of a text) has shared[k] -1; the others are numbered 0, 1, ...
 * in shared[k], and row i's entries of them are also listed apart, entries sharedStart[i]..sharedStart[i + 1] - 1 of
 * sharedColumn and sharedWeight: the projection Vᵀ·x reads only those. Scratch space, reused from call to call and
 * grown as texts need: a power step's arithmetic took less time than allocating its dozen arrays.
 */
const rows = {
  rowStart: new Int32Array(64),
  column: new Int32Array(256),
  count: new Int32Array(256),
  weight: new Float64Array(256),
  shared: new Int32Array(256),
  sharedStart: new Int32Array(64),
  sharedColumn: new Int32Array(256),
  sharedWeight: new Float64Array(256),
  /** By column: the term's number among the shared ones, -1 if only one row has it. */
  sharedNumber: new Int32Array(256),
  documentFrequency: new Int32Array(256),
  idf: new Float64Array(256),
  /** By document frequency: the idf. */
  idfOf: new Float64Array(64),
  columnSums: new Float64Array(256),
  projected: new Float64Array(256),
  selfSimilarity: new Float64Array(64),
  degree: new Float64Array(64),
  rank: new Float64Array(64),
  next: new Float64Array(64),
  perDegree: new Float64Array(64)
}

/**
 * PageRank centrality of each sentence, given its terms; non-negative, summing to 1.
 *
 * Each power step does the same arithmetic in the same order as it always did, so the scores are the same to the last
 * bit, with less work around it: a term only one sentence has adds to that sentence's own dot product only, as
 * weight · (weight · x) — the same two products the projection and the dot product made of it, without the store and
 * the load between them.
 */
export function centrality (sentenceTerms: TermRows): number[] {
  const n = sentenceTerms.start.length - 1
  const columns = tfIdfVectors(sentenceTerms)
  const sharedColumns = sharedEntries(n, columns)
  const { rowStart, column, weight, shared, sharedStart, sharedColumn, sharedWeight } = rows
  const selfSimilarity = rows.selfSimilarity = grown(rows.selfSimilarity, n)
  const columnSums = rows.columnSums = grown(rows.columnSums, columns)
  columnSums.fill(0, 0, columns)
  for (let i = 0; i < n; i++) {
    let squares = 0
    for (let k = rowStart[i]!, end = rowStart[i + 1]!; k < end; k++) {
      const w = weight[k]!
      const c = column[k]!
      squares += w * w
      columnSums[c] = columnSums[c]! + w
    }
    selfSimilarity[i] = squares
  }
  const degree = rows.degree = grown(rows.degree, n)
  for (let i = 0; i < n; i++) {
    let sum = 0
    for (let k = rowStart[i]!, end = rowStart[i + 1]!; k < end; k++) sum += weight[k]! * columnSums[column[k]!]!
    degree[i] = sum - selfSimilarity[i]!
  }

  let rank = rows.rank = grown(rows.rank, n)
  let next = rows.next = grown(rows.next, n)
  rank.fill(1 / n, 0, n)
  const perDegree = rows.perDegree = grown(rows.perDegree, n)
  const projected = rows.projected = grown(rows.projected, sharedColumns)
  for (let iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
    let danglingMass = 0
    for (let i = 0; i < n; i++) {
      const d = degree[i]!
      const r = rank[i]!
      if (d > NO_EDGES) perDegree[i] = r / d
      else { perDegree[i] = 0; danglingMass += r }
    }
    // Each shared term's sum in the same order as over all entries (rows in order, a term once a row).
    projected.fill(0, 0, sharedColumns)
    for (let i = 0; i < n; i++) {
      const x = perDegree[i]!
      if (x === 0) continue
      for (let k = sharedStart[i]!, end = sharedStart[i + 1]!; k < end; k++) {
        const c = sharedColumn[k]!
        projected[c] = projected[c]! + sharedWeight[k]! * x
      }
    }
    let change = 0
    const base = ((1 - DAMPING) + DAMPING * danglingMass) / n
    for (let i = 0; i < n; i++) {
      const x = perDegree[i]!
      let sum = 0
      for (let k = rowStart[i]!, end = rowStart[i + 1]!; k < end; k++) {
        const w = weight[k]!
        const c = shared[k]!
        sum += w * (c === -1 ? w * x : projected[c]!)
      }
      // Rounding can push the sum of a sentence's neighbours a hair below zero.
      const fromNeighbours = Math.max(0, sum - selfSimilarity[i]! * x)
      const value = base + DAMPING * fromNeighbours
      next[i] = value
      change = Math.max(change, Math.abs(value - rank[i]!))
    }
    const previous = rank
    rank = next
    next = previous
    if (change * n < TOLERANCE) break
  }
  const scores = normalize(rank.subarray(0, n))
  trimRows()
  return scores
}

/** Lets go of the scratch arrays a long text grew past what is kept between calls. */
function trimRows (): void {
  rows.rowStart = trimmed(rows.rowStart, 64)
  rows.column = trimmed(rows.column, 256)
  rows.count = trimmed(rows.count, 256)
  rows.weight = trimmed(rows.weight, 256)
  rows.shared = trimmed(rows.shared, 256)
  rows.sharedStart = trimmed(rows.sharedStart, 64)
  rows.sharedColumn = trimmed(rows.sharedColumn, 256)
  rows.sharedWeight = trimmed(rows.sharedWeight, 256)
  rows.sharedNumber = trimmed(rows.sharedNumber, 256)
  rows.documentFrequency = trimmed(rows.documentFrequency, 256)
  rows.idf = trimmed(rows.idf, 256)
  rows.idfOf = trimmed(rows.idfOf, 64)
  rows.columnSums = trimmed(rows.columnSums, 256)
  rows.projected = trimmed(rows.projected, 256)
  rows.selfSimilarity = trimmed(rows.selfSimilarity, 64)
  rows.degree = trimmed(rows.degree, 64)
  rows.rank = trimmed(rows.rank, 64)
  rows.next = trimmed(rows.next, 64)
  rows.perDegree = trimmed(rows.perDegree, 64)
}

/**
 * Fills `rows` with unit-length TF-IDF rows and returns the number of distinct terms; the smoothed idf
 * ln((1 + n) / (1 + df)) + 1 keeps terms found in every sentence.
 */
function tfIdfVectors ({ start, ids, terms: columns }: TermRows): number {
  const n = start.length - 1
  const total = ids.length
  const rowStart = rows.rowStart = grown(rows.rowStart, n + 1)
  const column = rows.column = grown(rows.column, total)
  const count = rows.count = grown(rows.count, total)
  let k = 0
  for (let i = 0; i < n; i++) {
    const first = k
    for (let j = start[i]!; j < start[i + 1]!; j++) column[k++] = ids[j]!
    // Sorting the row's term ids puts repeats side by side, so counting them needs no map.
    sortIds(column, first, k)
    const last = k
    k = first
    for (let j = first; j < last; j++) {
      const id = column[j]!
      if (k > first && column[k - 1] === id) count[k - 1] = count[k - 1]! + 1
      else { column[k] = id; count[k++] = 1 }
    }
    rowStart[i + 1] = k
  }

  const documentFrequency = rows.documentFrequency = grown(rows.documentFrequency, columns)
  documentFrequency.fill(0, 0, columns)
  for (let j = 0; j < k; j++) documentFrequency[column[j]!] = documentFrequency[column[j]!]! + 1
  // A term's idf, once: the same number for each of its sentences. It depends on the document frequency alone, and
  // most terms have one of a few (1, 2, 3): each frequency's logarithm is taken once, its first time (NaN before).
  const idf = rows.idf = grown(rows.idf, columns)
  const idfOf = rows.idfOf = grown(rows.idfOf, n + 1)
  idfOf.fill(NaN, 0, n + 1)
  for (let c = 0; c < columns; c++) {
    const frequency = documentFrequency[c]!
    let value = idfOf[frequency]!
    if (Number.isNaN(value)) value = idfOf[frequency] = Math.log((1 + n) / (1 + frequency)) + 1
    idf[c] = value
  }
  const weight = rows.weight = grown(rows.weight, k)
  for (let i = 0; i < n; i++) {
    let squares = 0
    const end = rowStart[i + 1]!
    for (let j = rowStart[i]!; j < end; j++) {
      const w = count[j]! * idf[column[j]!]!
      weight[j] = w
      squares += w * w
    }
    const length = Math.sqrt(squares)
    for (let j = rowStart[i]!; j < end; j++) weight[j] = weight[j]! / length
  }
  return columns
}

/**
 * Numbers the terms more than one row has, 0, 1, ... (shared[k], -1 for the others) and lists each row's entries of
 * them apart; returns how many there are.
 */
function sharedEntries (n: number, columns: number): number {
  const { rowStart, column, weight, documentFrequency } = rows
  const entries = rowStart[n]!
  const numberOf = rows.sharedNumber = grown(rows.sharedNumber, columns)
  numberOf.fill(-1, 0, columns)
  const shared = rows.shared = grown(rows.shared, entries)
  const sharedStart = rows.sharedStart = grown(rows.sharedStart, n + 1)
  const sharedColumn = rows.sharedColumn = grown(rows.sharedColumn, entries)
  const sharedWeight = rows.sharedWeight = grown(rows.sharedWeight, entries)
  let numbered = 0
  let listed = 0
  for (let i = 0; i < n; i++) {
    sharedStart[i] = listed
    for (let k = rowStart[i]!, end = rowStart[i + 1]!; k < end; k++) {
      const c = column[k]!
      if (documentFrequency[c] === 1) {
        shared[k] = -1
        continue
      }
      if (numberOf[c] === -1) numberOf[c] = numbered++
      shared[k] = numberOf[c]!
      sharedColumn[listed] = numberOf[c]!
      sharedWeight[listed++] = weight[k]!
    }
  }
  sharedStart[n] = listed
  return numbered
}

/** Sorts ids[from..to) ascending: by insertion while the row is short (most sentences), by the typed array's sort past that. */
function sortIds (ids: Int32Array, from: number, to: number): void {
  if (to - from > 32) {
    ids.subarray(from, to).sort()
    return
  }
  for (let i = from + 1; i < to; i++) {
    const id = ids[i]!
    let j = i - 1
    for (; j >= from && ids[j]! > id; j--) ids[j + 1] = ids[j]!
    ids[j + 1] = id
  }
}

/** An array, not a Float64Array: a typed array of more than 64 bytes is an ArrayBuffer of its own, slower to allocate. */
function normalize (values: Float64Array): number[] {
  let total = 0
  for (let i = 0; i < values.length; i++) total += values[i]!
  const scores: number[] = []
  for (let i = 0; i < values.length; i++) scores.push(values[i]! / total)
  return scores
}
