import { randomUUID } from 'node:crypto'
import { ApiError, failure } from '../errors.js'
import type { HoneySerializer } from '../execution/execution.js'
import { honeyOf, serialized } from '../execution/sale.js'
import type { Ledger } from '../ledger/ledger.js'
import type { StoredRun } from '../ledger/runs/run-repository.js'
import { storeFaultOf } from '../ledger/store-faults.js'
import { later, now } from '../ledger/timestamps.js'
import type { Logger } from '../logger.js'
import type { Registry } from '../registry.js'
import type { RunEvents } from './run-events.js'
import type { RunSignals } from './signals.js'

export interface RunWorkerOptions {
  ledger: Ledger
  registry: Registry
  signals: RunSignals
  /** Where a stream Bee's run keeps its events. */
  events: RunEvents
  /** RUN_LEASE_SECONDS: how long a claim lasts without a heartbeat. */
  leaseSeconds: number
  /** RUN_POLL_MS: the expiry sweep runs at most this often. */
  sweepMs: number
  /** RUN_RETENTION_HOURS: how long a run is kept once it ended. */
  retentionHours: number
  log: Logger
}

/** What one call to runOnce did. */
export type RunResult = 'idle' | 'succeeded' | 'failed' | 'lost' | 'interrupted'

const AS_JSON: HoneySerializer = { serialize: (honey) => JSON.stringify(honey) }

const holdSettled = () => failure('HOLD_EXPIRED', 'The hold on your wallet was released before the run finished, so its answer is not ' +
  'served and you were not charged for it. Start the run again.')

/**
 * Runs queued runs, whichever process queued them: claims one, keeps its lease alive while the Bee works (up to its
 * maxRunSeconds), and settles it. A success is written before its hold is captured, so a cancel that comes while the
 * answer is on its way either wins (the hold voided, the answer dropped) or finds the run succeeded; the capture then
 * happens once. A worker that dies mid-run leaves the run to be claimed again once its lease passes, its hold still
 * pending: the run is done again from the start and charged once. Past its expiry, a run is expired and its hold voided.
 */
export class RunWorker {
  readonly #options: RunWorkerOptions
  readonly #stopping = new AbortController()
  #sweptAt = 0

  constructor (options: RunWorkerOptions) {
    this.#options = options
  }

  /** Stops the runs in progress; each is taken over, here after a restart or by another instance, once its lease passes. */
  stop (): void {
    this.#stopping.abort()
  }

  /**
   * Claims and runs one run: that one (a job engine's delivery), or the oldest due one (a queued one only if it was
   * queued `queuedFor` seconds ago: a job engine's poller leaves the younger ones to their jobs).
   */
  async runOnce (id?: string, queuedFor = 0): Promise<RunResult> {
    if (this.#stopping.signal.aborted) return 'interrupted'
    const { ledger, leaseSeconds } = this.#options
    const runToken = randomUUID()
    const run = await ledger.runs.claim({
      ...(id === undefined ? {} : { id }), runToken, now: now(), leaseUntil: later(leaseSeconds), ...(queuedFor > 0 ? { queuedBefore: later(-queuedFor) } : {})
    })
    if (run === null) {
      await this.#sweep()
      return 'idle'
    }
    return await this.#work(run, runToken)
  }

  async #work (run: StoredRun, runToken: string): Promise<RunResult> {
    const { ledger, signals, leaseSeconds, log } = this.#options
    const ids = { runId: run.id, beeId: run.beeId }
    const lost = new AbortController()
    signals.track(run.id, lost)
    // Heartbeats are written one after the other; one that finds the run gone (cancelled, expired) stops the upstream.
    let beats = Promise.resolve()
    const timer = setInterval(() => {
      beats = beats.then(async () => {
        if (!await ledger.runs.heartbeat(run.id, runToken, later(leaseSeconds))) lost.abort()
      }).catch((error: unknown) => log.warn({ err: error, ...ids }, 'run heartbeat failed'))
    }, leaseSeconds * 1000 / 3)
    log.info({ ...ids, attempt: run.attempts }, 'run started')
    try {
      const answered = run.honey === null ? await this.#answer(run, runToken, lost.signal) : { body: run.honey }
      if (!('body' in answered)) return answered.result
      return await this.#sell(run, runToken, answered.body)
    } finally {
      clearInterval(timer)
      await beats
      signals.untrack(run.id)
      signals.end(run.id)
    }
  }

  /** Calls the Bee and keeps its answer on the run; what the run came to instead when the call failed or the run was lost. */
  async #answer (run: StoredRun, runToken: string, lost: AbortSignal): Promise<{ body: string } | { result: RunResult }> {
    const { ledger, registry, log } = this.#options
    const bee = await registry.lookup(run.beeId)
    if (bee === undefined) {
      return { result: await this.#fail(run, runToken, failure('BEE_NOT_FOUND', `The Bee ${run.beeId} was removed before its run finished. You were not charged.`)) }
    }
    let body: string
    try {
      const outcome = await bee.definition.execute(run.input, {
        log,
        requestId: run.requestId,
        timeoutMs: run.maxRunSeconds * 1000,
        signal: AbortSignal.any([lost, this.#stopping.signal]),
        ...(bee.record.config.executionMode === 'stream' ? { events: this.#options.events.sink(run, runToken, bee, log) } : {})
      })
      body = serialized(bee, honeyOf(bee, outcome, log), AS_JSON, log)
    } catch (error) {
      // Cancelled or expired: whoever ended the run voided its hold. Stopping: the run is taken over once its lease passes.
      if (lost.aborted) return { result: 'lost' }
      if (this.#stopping.signal.aborted) return { result: 'interrupted' }
      if (!(error instanceof ApiError)) log.error({ err: error, runId: run.id }, 'run failed unexpectedly')
      const failed = error instanceof ApiError ? error : failure('INTERNAL_ERROR', 'The run failed on our side. You were not charged.')
      return { result: await this.#fail(run, runToken, failed) }
    }
    return await ledger.runs.keepAnswer(run.id, runToken, body) ? { body } : { result: 'lost' }
  }

  /**
   * Captures the hold of an answered run, then marks it succeeded. A worker that took the run over finds the hold
   * captured already if the one before it died between the two: the run is then marked succeeded, not charged again.
   */
  async #sell (run: StoredRun, runToken: string, body: string): Promise<RunResult> {
    const { ledger, log } = this.#options
    const ids = { runId: run.id, beeId: run.beeId }
    if (run.holdId !== null && !await ledger.holds.capture(run.holdId, run.requestId, null) && await ledger.runs.holdState(run.holdId) !== 'captured') {
      log.warn(ids, 'run answered after its hold was released: not served')
      return await this.#fail(run, runToken, holdSettled())
    }
    if (await ledger.runs.settle(run.id, { from: ['running'], runToken, status: 'succeeded', honey: body, error: null, at: now() }) === null) return 'lost'
    log.info(ids, 'run succeeded')
    return 'succeeded'
  }

  /**
   * Voids the hold, then marks the run failed: whoever reads the run failed finds the money back. A worker that dies in
   * between leaves a run that is taken over and fails again, its hold voided already: never charged.
   */
  async #fail (run: StoredRun, runToken: string, error: ApiError): Promise<RunResult> {
    const { log } = this.#options
    if (run.holdId !== null) await this.#void(run.holdId, run.requestId, log)
    const failed = await this.#options.ledger.runs.settle(run.id, {
      from: ['running'], runToken, status: 'failed', honey: null, error: { code: error.code, message: error.message, status: error.statusCode }, at: now()
    })
    if (failed === null) return 'lost'
    log.info({ runId: run.id, beeId: run.beeId, code: error.code }, 'run failed')
    return 'failed'
  }

  /** Expires the runs past their expiry (at most once every sweepMs in this process), voiding their holds, and purges the runs past their retention. */
  async #sweep (): Promise<void> {
    if (Date.now() - this.#sweptAt < this.#options.sweepMs) return
    this.#sweptAt = Date.now()
    const expired = await this.#options.ledger.runs.expireDue(now(), 100)
    for (const run of expired) {
      this.#options.signals.stop(run.id)
      this.#options.signals.end(run.id)
      if (run.holdId !== null) await this.#void(run.holdId, run.requestId, this.#options.log)
    }
    if (expired.length > 0) this.#options.log.warn({ runIds: expired.map((run) => run.id) }, 'runs expired')
    await this.#options.ledger.runs.purgeEnded(later(-this.#options.retentionHours * 3600), 1000)
  }

  /** A hold that cannot be voided now stays pending until the hold sweeper voids it at its expiry. */
  async #void (holdId: number, requestId: string, log: Logger): Promise<void> {
    try {
      await this.#options.ledger.holds.void(holdId, requestId)
    } catch (error) {
      log[storeFaultOf(error) === null ? 'error' : 'debug']({ err: error, holdId }, 'void of a run\'s hold failed')
    }
  }
}
