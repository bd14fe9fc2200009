import PgBoss from 'pg-boss'
import { storeFaultOf } from '../ledger/store-faults.js'
import type { Logger } from '../logger.js'
import { createQueue, ledgerSchema } from '../preparations/queue/pg-boss-queue.js'

export const RUN_JOB = 'bee-run'

/** What the queue runs: a worker that claims that record, or the oldest due one ('idle' when there is none). */
export interface RecordWorker {
  runOnce (id?: string, queuedFor?: number): Promise<string>
  stop (): void
}

export interface PgBossRunQueueOptions {
  /** The job's name; RUN_JOB by default (runs' callbacks ride a queue of their own). */
  job?: string
  connectionString: string
  /** pg-boss's schema; undefined: the ledger's schema with `_jobs` (shared with the preparations' queue). */
  schema: string | undefined
  concurrency: number
  /** RUN_POLL_MS: how often pg-boss's workers poll, and how often runs without a live worker (a dead one's) are looked for. */
  pollMs: number
  /** Longer than any run: a job active longer lost its worker (the run's own lease says so sooner). */
  expireInSeconds: number
  /** A run queued this long ago and still queued has lost its job (its process died before sending it): the poller takes it. */
  lostJobSeconds: number
  log: Logger
  /** See PgBossQueueOptions.onConnectionLost. */
  onConnectionLost?: (error: Error) => void
}

interface JobData { id: string }

/**
 * Runs on PostgreSQL: pg-boss hands each run's job to one worker across all instances. The run's claim still decides
 * (a delivery for a run running elsewhere, ended or expired does nothing), and the runs a job no longer names (their
 * worker died: the job was delivered and completed by that process's death, or never sent) are found by a poller that
 * claims due runs, as the database queue does, and expires the ones past their expiry.
 */
export class PgBossRunQueue {
  readonly #worker: RecordWorker
  readonly #options: PgBossRunQueueOptions
  #boss: PgBoss | null = null
  #poller: NodeJS.Timeout | undefined
  #polling: Promise<void> | null = null

  constructor (worker: RecordWorker, options: PgBossRunQueueOptions) {
    this.#worker = worker
    this.#options = options
  }

  async start (): Promise<void> {
    const { connectionString, concurrency, pollMs, expireInSeconds, log, onConnectionLost } = this.#options
    const schema = this.#options.schema ?? `${await ledgerSchema(connectionString)}_jobs`
    const boss = new PgBoss({ connectionString, schema, max: concurrency + 2 })
    boss.on('error', (error) => {
      if (onConnectionLost !== undefined && storeFaultOf(error) !== null) onConnectionLost(error)
      else log.error({ err: error }, 'pg-boss error')
    })
    this.#boss = boss
    await boss.start()
    // No retries of its own: a run that failed has failed, a callback's retries are its record's (the poller finds them
    // due), and a record whose worker died is the poller's.
    await createQueue(boss, { name: this.#job, retryLimit: 0, expireInSeconds })
    for (let i = 0; i < concurrency; i++) {
      await boss.work<JobData>(this.#job, { batchSize: 1, pollingIntervalSeconds: Math.max(0.5, pollMs / 1000) }, async (jobs) => {
        for (const job of jobs) await this.#worker.runOnce(job.data.id)
      })
    }
    this.#poller = setInterval(() => { this.#poll() }, pollMs)
    this.#poller.unref()
  }

  /** One poll at a time: claims due runs until none is left (each run is worked on to its end, here). */
  #poll (): void {
    this.#polling ??= (async () => {
      try {
        while (await this.#worker.runOnce(undefined, this.#options.lostJobSeconds) !== 'idle') { /* the next due run */ }
      } catch (error) {
        this.#options.log.error({ err: error }, 'run queue: claiming a run failed')
      } finally {
        this.#polling = null
      }
    })()
  }

  async enqueue (id: string): Promise<void> {
    if (this.#boss === null) throw new Error('the run queue is not started')
    await this.#boss.send(this.#job, { id } satisfies JobData)
  }

  get #job (): string {
    return this.#options.job ?? RUN_JOB
  }

  async stop (): Promise<void> {
    clearInterval(this.#poller)
    this.#worker.stop()
    await this.#polling
    await this.#boss?.stop({ graceful: true, wait: true, timeout: 10_000 })
  }
}
