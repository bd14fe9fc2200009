import type { BeeCounts, MinuteCounts } from '../../health/counts.js'

/**
 * Bee health counters, per Bee and minute, shared by every instance on the database. Only ever incremented
 * (INSERT … ON CONFLICT DO UPDATE adds), so concurrent instances never overwrite each other's counts.
 */
export interface HealthRepository {
  /** Adds each row's counts to its Bee's minute. */
  add (rows: readonly MinuteCounts[]): Promise<void>
  /** Every Bee's counts summed over the minutes from `sinceMinute` on (one query); Bees without rows there are absent. */
  window (sinceMinute: number): Promise<BeeCounts[]>
  /** Deletes the minutes before `beforeMinute`; returns how many rows went. */
  prune (beforeMinute: number): Promise<number>
}
