import type { BeeHealth } from '../schemas.js'
import type { HealthCounts } from './counts.js'
import { quantileOf } from './latency.js'

/** Shares to 4 decimals and times to 0.1 ms: finer would only re-render discovery for noise. */
const share = (part: number, whole: number) => whole === 0 ? null : Math.round(part / whole * 10_000) / 10_000
const millis = (ms: number | null) => ms === null ? null : Math.round(ms * 10) / 10

/** A Bee's figures from its counts over the window; without runs, nulls (not a perfect score nobody earned). */
export function figuresOf (counts: HealthCounts | undefined, windowMinutes: number): BeeHealth {
  if (counts === undefined || counts.calls === 0) {
    return { windowMinutes, calls: 0, successRate: null, p50Ms: null, p95Ms: null, conformance: null }
  }
  const answered = counts.calls - counts.failures + counts.nonconforming
  return {
    windowMinutes,
    calls: counts.calls,
    successRate: share(counts.calls - counts.failures, counts.calls),
    p50Ms: millis(quantileOf(counts.latency, 0.5)),
    p95Ms: millis(quantileOf(counts.latency, 0.95)),
    conformance: share(answered - counts.nonconforming, answered)
  }
}
