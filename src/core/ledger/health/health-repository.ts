import type { BeeCounts, MinuteCounts } from '../../health/counts.js'

/** One Bee's counts summed over a window, and the first minute of it holding any. */
export interface BeeWindow extends BeeCounts {
  firstMinute: number
}

/**
 * Bee health counters, per Bee and minute, shared by every instance on the database. Only ever incremented
 * (INSERT … ON CONFLICT DO UPDATE adds), so concurrent instances never overwrite each other's counts. Each write is
 * numbered (its version), so a reader can ask what changed since the last version it read.
 */
export interface HealthRepository {
  /** Adds each row's counts to its Bee's minute, as one write with the next version. */
  add (rows: readonly MinuteCounts[]): Promise<void>
  /** The version of the last committed write: every write up to it is readable. */
  version (): Promise<number>
  /** The Bees a write after `version` touched (in any minute). */
  changedSince (version: number): Promise<string[]>
  /**
   * Counts summed over the minutes from `sinceMinute` on, of every Bee or of `beeIds` only (one query per
   * thousand); Bees without rows there are absent.
   */
  window (sinceMinute: number, beeIds?: readonly string[]): Promise<BeeWindow[]>
  /** Deletes the minutes before `beforeMinute`; returns how many rows went. */
  prune (beforeMinute: number): Promise<number>
}
