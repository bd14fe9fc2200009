import { LATENCY_BUCKETS } from './latency.js'

/**
 * What a Bee's run says about the Bee: it answered well (`ok`), failed (an error, a timeout, its upstream), or
 * answered with output that breaks its own outputSchema (`nonconforming`, a failure too).
 */
export type Verdict = 'ok' | 'failed' | 'nonconforming'

/** Additive counts of runs: they sum across minutes and instances. */
export interface HealthCounts {
  calls: number
  /** Runs that failed, nonconforming ones included. */
  failures: number
  /** Runs whose answer broke the Bee's outputSchema. */
  nonconforming: number
  /** Runs per latency bucket (LATENCY_BOUNDS_MS, then the overflow). */
  latency: number[]
}

/** One Bee's counts in one minute (minutes since the Unix epoch). */
export interface MinuteCounts extends HealthCounts {
  minute: number
  beeId: string
}

/** One Bee's counts summed over a window. */
export interface BeeCounts extends HealthCounts {
  beeId: string
}

export const noCounts = (): HealthCounts => ({ calls: 0, failures: 0, nonconforming: 0, latency: new Array<number>(LATENCY_BUCKETS).fill(0) })

/** Adds `more` into `into`. */
export function addCounts (into: HealthCounts, more: HealthCounts): void {
  into.calls += more.calls
  into.failures += more.failures
  into.nonconforming += more.nonconforming
  for (let bucket = 0; bucket < LATENCY_BUCKETS; bucket++) into.latency[bucket]! += more.latency[bucket] ?? 0
}
