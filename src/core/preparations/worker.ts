import { randomUUID } from 'node:crypto'
import type { PreparationRepository } from '../ledger/preparations/preparation-repository.js'
import { later, now } from '../ledger/timestamps.js'
import type { Logger } from '../logger.js'
import { backoffSeconds, WAITING } from './lifecycle.js'
import type { OutputFiles, Preparation, PreparationError, Progress } from './schemas.js'

/** The files a run produces; who completed them, and when, the worker adds. */
export type PreparedFiles = Omit<OutputFiles, 'completedBy' | 'completedAt'>

export type PrepareOutcome = { ok: true, files: PreparedFiles } | { ok: false, error: PreparationError, retryable: boolean }

export interface RunContext {
  /** Aborted when the run must stop: the record was canceled, edited or deleted, or the process is stopping. */
  signal: AbortSignal
  report (progress: Progress): void
}

/** Does the work of one run: crawl the site and compose the files (see prepare.ts). */
export type Prepare = (preparation: Preparation, run: RunContext) => Promise<PrepareOutcome>

export interface WorkerOptions {
  repository: PreparationRepository
  prepare: Prepare
  /** How long a claim lasts without a heartbeat: after that, the job counts as abandoned by a dead worker. */
  leaseSeconds: number
  maxAttempts: number
  retryDelaySeconds: number
  /** completedBy of the records that complete on their own (PREPARER_EMAIL). */
  preparerEmail: string
  log: Logger
  /** Told how each run that claimed a record ended and how long it took (metrics). */
  onRunEnded?: (result: RunResult, seconds: number) => void
}

/** What one call to runOnce did; `retry` means the run failed and the record waits for another attempt. */
export type RunResult = 'idle' | 'completed' | 'failed' | 'retry' | 'abandoned' | 'interrupted'

/**
 * Runs preparation jobs, whichever queue hands them out: claims the record, keeps its lease alive while
 * the work goes on, and settles it. Every write is fenced by the claim's token, so a run whose record
 * was canceled, edited, deleted or claimed again after its lease passed writes nothing.
 */
export class PreparationWorker {
  readonly #options: WorkerOptions
  readonly #stopping = new AbortController()

  constructor (options: WorkerOptions) {
    this.#options = options
  }

  /** Stops the runs in progress; they are put back in the queue, for this or another process. */
  stop (): void {
    this.#stopping.abort()
  }

  /** Claims and runs one record: that one (a job engine's delivery), or the next due one. */
  async runOnce (id?: string): Promise<RunResult> {
    const { repository, leaseSeconds, log } = this.#options
    if (this.#stopping.signal.aborted) return 'interrupted'
    const runToken = randomUUID()
    const claimed = await repository.claim({ ...(id === undefined ? {} : { id }), runToken, now: now(), leaseUntil: later(leaseSeconds) })
    if (claimed === null) return 'idle'
    const started = performance.now()
    const lost = new AbortController()
    let progress: Progress = { ...WAITING, stage: 'robots' }
    // Heartbeats are written one after the other, so a late one never overwrites newer progress.
    let beats = Promise.resolve()
    const beat = () => {
      beats = beats.then(async () => {
        if (!await repository.heartbeat(claimed.id, runToken, progress, later(leaseSeconds))) lost.abort()
      }).catch((error: unknown) => log.warn({ err: error, preparationId: claimed.id }, 'preparation heartbeat failed'))
    }
    beat()
    const timer = setInterval(beat, leaseSeconds * 1000 / 3)
    log.info({ preparationId: claimed.id, attempt: claimed.attempts }, 'preparation started')
    let outcome: PrepareOutcome
    try {
      outcome = await this.#options.prepare(claimed, {
        signal: AbortSignal.any([lost.signal, this.#stopping.signal]),
        report (next) {
          progress = next
          beat()
        }
      })
    } catch (error) {
      log.error({ err: error, preparationId: claimed.id }, 'preparation failed unexpectedly')
      outcome = { ok: false, error: { code: 'PREPARATION_ERROR', message: 'The preparation failed unexpectedly; it will be retried.' }, retryable: true }
    } finally {
      clearInterval(timer)
      await beats
    }
    if (lost.signal.aborted) {
      this.#options.onRunEnded?.('abandoned', (performance.now() - started) / 1000)
      return 'abandoned'
    }
    const result = this.#stopping.signal.aborted ? await this.#requeue(claimed, runToken, progress) : await this.#settle(claimed, runToken, progress, outcome)
    log.info({ preparationId: claimed.id, result }, 'preparation ended')
    this.#options.onRunEnded?.(result, (performance.now() - started) / 1000)
    return result
  }

  /** A run stopped by shutdown goes back to the queue as it was: the attempt does not count. */
  async #requeue (claimed: Preparation, runToken: string, progress: Progress): Promise<RunResult> {
    const settled = await this.#options.repository.settle(claimed.id, runToken, {
      status: 'queued', attempts: claimed.attempts - 1, runAfter: now(), progress: { ...progress, stage: 'waiting' }, updatedAt: now()
    })
    return settled ? 'interrupted' : 'abandoned'
  }

  async #settle (claimed: Preparation, runToken: string, progress: Progress, outcome: PrepareOutcome): Promise<RunResult> {
    const { repository, maxAttempts, retryDelaySeconds, preparerEmail } = this.#options
    const at = now()
    if (outcome.ok) {
      const settled = await repository.settle(claimed.id, runToken, {
        status: 'completed',
        outputFiles: { completedBy: preparerEmail, completedAt: at, ...outcome.files },
        progress: { ...progress, stage: 'done' },
        error: null,
        updatedAt: at
      })
      return settled ? 'completed' : 'abandoned'
    }
    const again = outcome.retryable && claimed.attempts < maxAttempts
    const settled = await repository.settle(claimed.id, runToken, again
      ? { status: 'queued', error: outcome.error, runAfter: later(backoffSeconds(claimed.attempts, retryDelaySeconds)), progress: { ...progress, stage: 'waiting' }, updatedAt: at }
      : { status: 'failed', error: outcome.error, progress, updatedAt: at })
    if (!settled) return 'abandoned'
    return again ? 'retry' : 'failed'
  }
}
