/** A Bee's limit counts calls in fixed windows of a minute from the first call, as the per-caller limits do. */
export const BEE_WINDOW_MS = 60_000

/** Whether one more call to a Bee fits its limit; when not, how long until its window ends. */
export type BeeLimitDecision = { allowed: true } | { allowed: false, retryAfterSeconds: number }

/**
 * Counts the calls to each Bee from all callers together, against the limit its publisher (or the
 * operator) set to spare its upstream. One instance counts in memory; several share Redis.
 */
export interface BeeLimiter {
  /** Counts one call to `beeId` and says whether it is within `callsPerMinute`. */
  take (beeId: string, callsPerMinute: number): Promise<BeeLimitDecision>
}

export function decide (count: number, callsPerMinute: number, remainingMs: number): BeeLimitDecision {
  return count <= callsPerMinute ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(remainingMs / 1000)) }
}

/** Below this many windows the expired ones are left to be reused; above it they are swept. */
const SWEEP_FLOOR = 1024

/**
 * The counters of one instance. A window that ended is swept once the map has doubled since the last sweep, so
 * the map holds about the Bees called in the last minute, not every Bee ever called (the catalog, at 10,000 Bees).
 */
export class MemoryBeeLimiter implements BeeLimiter {
  readonly #windows = new Map<string, { count: number, endsAt: number }>()
  readonly #clock: () => number
  #sweepAt = SWEEP_FLOOR

  constructor (clock: () => number = Date.now) {
    this.#clock = clock
  }

  /** How many Bees' windows are held. */
  get size (): number {
    return this.#windows.size
  }

  async take (beeId: string, callsPerMinute: number): Promise<BeeLimitDecision> {
    const now = this.#clock()
    let window = this.#windows.get(beeId)
    if (window === undefined || window.endsAt <= now) {
      if (window === undefined && this.#windows.size >= this.#sweepAt) this.#sweep(now)
      window = { count: 0, endsAt: now + BEE_WINDOW_MS }
      this.#windows.set(beeId, window)
    }
    window.count++
    return decide(window.count, callsPerMinute, window.endsAt - now)
  }

  #sweep (now: number): void {
    for (const [beeId, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(beeId)
    this.#sweepAt = Math.max(SWEEP_FLOOR, 2 * this.#windows.size)
  }
}
