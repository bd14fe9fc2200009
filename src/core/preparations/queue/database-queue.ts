import type { Logger } from '../../logger.js'
import type { PreparationQueue } from './preparation-queue.js'

/** What the queue runs: a worker that claims the next due job itself ('idle' when there is none). */
export interface QueueWorker {
  runOnce (): Promise<string>
  stop (): void
}

export interface DatabaseQueueOptions {
  /** Names the queue in its log lines. */
  name?: string
  concurrency: number
  /** How often an idle runner looks for due records (retries whose back-off has passed, abandoned runs). */
  pollMs: number
  log: Logger
}

/**
 * The embedded default: the records in the database are the queue, and `concurrency` runners in this
 * process claim them. A record left running by a process that died is claimed again once its lease
 * passes, so jobs survive restarts.
 */
export class DatabaseQueue implements PreparationQueue {
  readonly #worker: QueueWorker
  readonly #options: DatabaseQueueOptions
  readonly #runners: Array<Promise<void>> = []
  #stopped = false
  #wake: Array<() => void> = []

  constructor (worker: QueueWorker, options: DatabaseQueueOptions) {
    this.#worker = worker
    this.#options = options
  }

  async start (): Promise<void> {
    for (let i = 0; i < this.#options.concurrency; i++) this.#runners.push(this.#run())
  }

  async enqueue (): Promise<void> {
    for (const wake of [...this.#wake]) wake()
  }

  async stop (): Promise<void> {
    this.#stopped = true
    this.#worker.stop()
    await this.enqueue()
    await Promise.all(this.#runners)
  }

  async #run (): Promise<void> {
    while (!this.#stopped) {
      let result
      try {
        result = await this.#worker.runOnce()
      } catch (error) {
        this.#options.log.error({ err: error }, `${this.#options.name ?? 'preparation'} queue: claiming a job failed`)
        result = 'idle'
      }
      if (result === 'idle' && !this.#stopped) await this.#idle()
    }
  }

  #idle (): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        this.#wake = this.#wake.filter((other) => other !== wake)
        resolve()
      }
      const timer = setTimeout(wake, this.#options.pollMs)
      this.#wake.push(wake)
    })
  }
}
