import { addCounts, noCounts, type MinuteCounts, type Verdict } from './counts.js'
import { bucketOf } from './latency.js'

export const minuteOf = (epochMs: number) => Math.floor(epochMs / 60_000)

/**
 * Counts Bee runs in memory, per Bee and minute, until they are drained into the ledger (HealthSync): a run costs
 * a map lookup, never a write.
 */
export class HealthRecorder {
  readonly #pending = new Map<string, MinuteCounts>()
  readonly #clock: () => number

  constructor (clock: () => number = Date.now) {
    this.#clock = clock
  }

  record (beeId: string, verdict: Verdict, ms: number): void {
    const counts = this.#entry(minuteOf(this.#clock()), beeId)
    counts.calls++
    if (verdict !== 'ok') counts.failures++
    if (verdict === 'nonconforming') counts.nonconforming++
    counts.latency[bucketOf(ms)]!++
  }

  /** Everything counted since the last drain, in (minute, Bee) order, and forgets it. */
  drain (): MinuteCounts[] {
    const drained = [...this.#pending.values()]
    this.#pending.clear()
    // One order on every instance, so concurrent upserts of several rows take their row locks in the same order.
    return drained.sort((a, b) => a.minute - b.minute || (a.beeId < b.beeId ? -1 : a.beeId > b.beeId ? 1 : 0))
  }

  /** Takes back counts that could not be written, to be written with the next drain. */
  restore (rows: readonly MinuteCounts[]): void {
    for (const row of rows) addCounts(this.#entry(row.minute, row.beeId), row)
  }

  #entry (minute: number, beeId: string): MinuteCounts {
    const key = `${minute} ${beeId}`
    let entry = this.#pending.get(key)
    if (entry === undefined) {
      entry = { minute, beeId, ...noCounts() }
      this.#pending.set(key, entry)
    }
    return entry
  }
}
