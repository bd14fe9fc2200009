import pg from 'pg'
import PgBoss from 'pg-boss'
import { later, now } from '../../ledger/timestamps.js'
import type { Logger } from '../../logger.js'
import { storeFaultOf } from '../../ledger/store-faults.js'
import type { PreparationRepository } from '../../ledger/preparations/preparation-repository.js'
import type { PreparationWorker } from '../worker.js'
import type { PreparationQueue } from './preparation-queue.js'

export const PREPARATION_JOB = 'website-preparation'

const DEADLOCK_DETECTED = '40P01'

export interface PgBossQueueOptions {
  connectionString: string
  /** PostgreSQL schema of pg-boss's own tables; undefined: the ledger's schema (the URL's search_path) with `_jobs`. */
  schema: string | undefined
  concurrency: number
  pollSeconds: number
  maxAttempts: number
  retryDelaySeconds: number
  /** How long a job may stay active before pg-boss takes its worker for dead and hands it out again. */
  expireInSeconds: number
  /** How often due records without a job are looked for (at start, then every this many seconds). */
  resendSeconds: number
  repository: PreparationRepository
  log: Logger
  /**
   * A failure of pg-boss's that is the database away or a connection it closed (store-faults.ts): pg-boss retries by
   * itself (its pool opens new connections, its workers poll again), so it is the database's health to tell, not a
   * line per poll. Unset, it is logged as any other.
   */
  onConnectionLost?: (error: Error) => void
}

interface JobData { id: string }

/**
 * Instances starting together can deadlock in pg-boss's create_queue (each creates the queue's table):
 * PostgreSQL aborts one of them, which tries again and finds the queue made.
 */
export async function createQueue (boss: PgBoss, queue: PgBoss.Queue): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await boss.createQueue(queue.name, queue)
      return
    } catch (error) {
      if ((error as { code?: string }).code !== DEADLOCK_DETECTED || attempt === 5) throw error
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt))
    }
  }
}

/** The schema the ledger's tables are in: deployments (and test runs) sharing a database each get their own jobs. */
export async function ledgerSchema (connectionString: string): Promise<string> {
  const client = new pg.Client({ connectionString })
  await client.connect()
  try {
    return (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0]?.schema ?? 'public'
  } finally {
    await client.end()
  }
}

/**
 * The PostgreSQL queue: pg-boss hands each job to one worker across all instances (SKIP LOCKED), hands a
 * job whose worker died out again once it expires, and backs a failed one off before its retry. The
 * record's claim still decides: a delivery whose record is already running elsewhere, done, canceled or
 * deleted does nothing.
 */
export class PgBossQueue implements PreparationQueue {
  readonly #worker: PreparationWorker
  readonly #options: PgBossQueueOptions
  #boss: PgBoss | null = null
  #resendTimer: NodeJS.Timeout | undefined
  /** pg-boss's schema, quoted for SQL. */
  #schema = ''

  constructor (worker: PreparationWorker, options: PgBossQueueOptions) {
    this.#worker = worker
    this.#options = options
  }

  async start (): Promise<void> {
    const { connectionString, concurrency, pollSeconds, maxAttempts, retryDelaySeconds, expireInSeconds, log } = this.#options
    const schema = this.#options.schema ?? `${await ledgerSchema(connectionString)}_jobs`
    this.#schema = pg.escapeIdentifier(schema)
    const boss = new PgBoss({ connectionString, schema, max: concurrency + 2 })
    const { onConnectionLost } = this.#options
    boss.on('error', (error) => {
      if (onConnectionLost !== undefined && storeFaultOf(error) !== null) onConnectionLost(error)
      else log.error({ err: error }, 'pg-boss error')
    })
    this.#boss = boss
    await boss.start()
    // The record counts its attempts and stops retrying; pg-boss's limit only has to outlast it, shutdowns included.
    await this.#createQueue({ name: PREPARATION_JOB, retryLimit: maxAttempts + 5, retryDelay: retryDelaySeconds, retryBackoff: true, expireInSeconds })
    for (let i = 0; i < concurrency; i++) {
      await boss.work<JobData>(PREPARATION_JOB, { batchSize: 1, pollingIntervalSeconds: pollSeconds }, async (jobs) => {
        for (const job of jobs) {
          const result = await this.#worker.runOnce(job.data.id)
          // Failing the job makes pg-boss retry it after its back-off: a failed attempt, or one stopped by shutdown.
          if (result === 'retry' || result === 'interrupted') throw new Error(`preparation ${job.data.id}: ${result}`)
        }
      })
    }
    await this.#resendSafely()
    this.#resendTimer = setInterval(() => { this.#resendSafely().catch(() => {}) }, this.#options.resendSeconds * 1000)
    this.#resendTimer.unref()
  }

  async #resendSafely (): Promise<void> {
    try {
      await this.#resend()
    } catch (error) {
      this.#options.log.error({ err: error }, 'could not look for preparations without a job')
    }
  }

  /**
   * A record is saved before its job is sent, so a process that dies between the two leaves a queued
   * record no job names (and pg-boss drops a job once its retries are spent). Every instance looks for
   * due records, quiet for a while, without a live job, and sends one; the singleton slot keeps
   * instances that look at once from sending twice, and the record's claim would run a duplicate once anyway.
   */
  async #resend (): Promise<void> {
    const boss = this.#boss
    if (boss === null) return
    const { repository, resendSeconds, log } = this.#options
    const quiet = Math.max(5, resendSeconds)
    const due = await repository.dueIds(now(), later(-quiet), 100)
    if (due.length === 0) return
    const { rows } = await boss.getDb().executeSql(
      `SELECT DISTINCT data->>'id' AS id FROM ${this.#schema}.job WHERE name = $1 AND state < 'completed' AND data->>'id' = ANY($2)`,
      [PREPARATION_JOB, due]
    )
    const live = new Set(rows.map((row: { id: string }) => row.id))
    const lost = due.filter((id) => !live.has(id))
    for (const id of lost) {
      await boss.send(PREPARATION_JOB, { id } satisfies JobData, { singletonKey: id, singletonSeconds: resendSeconds })
    }
    if (lost.length > 0) log.warn({ preparationIds: lost }, 'due preparations had no job: sent again')
  }

  async #createQueue (queue: PgBoss.Queue): Promise<void> {
    if (this.#boss !== null) await createQueue(this.#boss, queue)
  }

  async enqueue (id: string): Promise<void> {
    if (this.#boss === null) throw new Error('the preparation queue is not started')
    await this.#boss.send(PREPARATION_JOB, { id } satisfies JobData)
  }

  async stop (): Promise<void> {
    clearInterval(this.#resendTimer)
    this.#worker.stop()
    await this.#boss?.stop({ graceful: true, wait: true, timeout: 10_000 })
  }
}
