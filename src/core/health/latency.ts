/**
 * Upper bounds (ms) of the latency histogram's buckets, a 1-2-5 series; one more bucket takes what is slower than
 * the last. Fixed, so counts from every instance and every minute add up; the ledger has one column per bucket
 * (see the bee_health migration): changing them needs a migration.
 */
export const LATENCY_BOUNDS_MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 60_000] as const

/** Buckets of a histogram: one per bound, and the overflow. */
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1

/** The bucket a latency falls in: the first whose bound it does not exceed, else the overflow. */
export function bucketOf (ms: number): number {
  let bucket = 0
  while (bucket < LATENCY_BOUNDS_MS.length && ms > LATENCY_BOUNDS_MS[bucket]!) bucket++
  return bucket
}

/**
 * The q-quantile of a histogram, interpolated linearly inside the bucket it falls in (as Prometheus's
 * histogram_quantile does); in the overflow bucket, the last bound (a floor: slower than that is all it knows).
 * Null for an empty histogram.
 */
export function quantileOf (counts: readonly number[], q: number): number | null {
  const total = counts.reduce((sum, count) => sum + count, 0)
  if (total === 0) return null
  const rank = q * total
  let bucket = 0
  let below = 0
  // Past the buckets below the rank, and past empty ones (a rank of 0 falls in the first bucket holding a count).
  while (counts[bucket] === 0 || below + counts[bucket]! < rank) below += counts[bucket++]!
  if (bucket === LATENCY_BOUNDS_MS.length) return LATENCY_BOUNDS_MS[bucket - 1]!
  const lower = bucket === 0 ? 0 : LATENCY_BOUNDS_MS[bucket - 1]!
  return lower + (LATENCY_BOUNDS_MS[bucket]! - lower) * (rank - below) / counts[bucket]!
}
