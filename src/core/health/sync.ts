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

/**
 * Moves this instance's counts into the ledger, drops the minutes that left the window, and reads every Bee's
 * window back onto the board (one query), so all instances on a database show the same figures.
 */
export class HealthSync {
  readonly #options: HealthSyncOptions
  readonly #clock: () => number
  #prunedBefore = -1
  #running: Promise<void> | null = null

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
    const { recorder, board, store, log } = this.#options
    const firstMinute = minuteOf(this.#clock()) - board.windowMinutes + 1
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
    board.update(await store.window(firstMinute))
  }
}
