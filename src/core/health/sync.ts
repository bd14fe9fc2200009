import type { HealthRepository } from '../ledger/health/health-repository.js'
import type { Logger } from '../logger.js'
import type { HealthBoard } from './board.js'
import { minuteOf, type HealthRecorder } from './recorder.js'

export interface HealthSyncOptions {
  recorder: HealthRecorder
  board: HealthBoard
  store: HealthRepository
  log: Logger
  clock?: () => number
}

/** What the board holds: the ledger's version and the window's first minute when it was read. */
interface Read {
  version: number
  firstMinute: number
}

/**
 * Moves this instance's counts into the ledger, drops the minutes that left the window, and reads the window back
 * onto the board, so all instances on a database show the same figures. The first sync reads every Bee's window;
 * each later one only the Bees whose counts changed since (written by any instance) or lost a minute as the window
 * moved on: its cost follows the Bees called, not the Bees that ever ran in the window.
 */
export class HealthSync {
  readonly #options: HealthSyncOptions
  readonly #clock: () => number
  #prunedBefore = -1
  #running: Promise<void> | null = null
  #read: Read | null = null
  /** The first minute holding counts of each Bee on the board: it leaves the board's figures when that minute leaves the window. */
  readonly #firstMinutes = new Map<string, number>()

  constructor (options: HealthSyncOptions) {
    this.#options = options
    this.#clock = options.clock ?? Date.now
  }

  /** One sync at a time; a caller arriving during one waits for it and then syncs again (so its own counts are in). */
  async sync (): Promise<void> {
    while (this.#running !== null) await this.#running
    this.#running = this.#sync().finally(() => { this.#running = null })
    await this.#running
  }

  async #sync (): Promise<void> {
    const { recorder, store, log } = this.#options
    const firstMinute = minuteOf(this.#clock()) - this.#options.board.windowMinutes + 1
    const drained = recorder.drain()
    try {
      await store.add(drained)
    } catch (error) {
      // Kept for the next sync, as long as they are still inside the window.
      recorder.restore(drained.filter((row) => row.minute >= firstMinute))
      throw error
    }
    // Once a minute is enough: only then does a minute leave the window.
    if (firstMinute > this.#prunedBefore) {
      const pruned = await store.prune(firstMinute)
      if (pruned > 0) log.debug({ pruned }, 'old Bee health minutes pruned')
      this.#prunedBefore = firstMinute
    }
    // The version first: whatever the reads after it see includes every write up to it.
    const read = { version: await store.version(), firstMinute }
    if (this.#read === null) await this.#readAll(firstMinute)
    else await this.#readChanged(this.#read, read)
    this.#read = read
  }

  async #readAll (firstMinute: number): Promise<void> {
    const bees = await this.#options.store.window(firstMinute)
    this.#options.board.update(bees)
    this.#firstMinutes.clear()
    for (const bee of bees) this.#firstMinutes.set(bee.beeId, bee.firstMinute)
  }

  async #readChanged (last: Read, { version, firstMinute }: Read): Promise<void> {
    const { store, board } = this.#options
    const stale = new Set(version > last.version ? await store.changedSince(last.version) : [])
    if (firstMinute > last.firstMinute) {
      for (const [beeId, first] of this.#firstMinutes) if (first < firstMinute) stale.add(beeId)
    }
    if (stale.size === 0) return
    const bees = await store.window(firstMinute, [...stale])
    board.update(bees, stale)
    for (const beeId of stale) this.#firstMinutes.delete(beeId)
    for (const bee of bees) this.#firstMinutes.set(bee.beeId, bee.firstMinute)
  }
}
