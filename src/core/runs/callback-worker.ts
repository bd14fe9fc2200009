import type { Ledger } from '../ledger/ledger.js'
import type { StoredCallback } from '../ledger/run-callbacks/run-callback-repository.js'
import type { StoredRun } from '../ledger/runs/run-repository.js'
import { later, now } from '../ledger/timestamps.js'
import type { Logger } from '../logger.js'
import { CALLBACK_TIMEOUT_MS, type CallbackSender } from './callback-sender.js'
import type { RunCallbackBody } from './schemas.js'
import { runView } from './service.js'

export interface CallbackWorkerOptions {
  ledger: Ledger
  sender: Pick<CallbackSender, 'send'>
  /** RUN_CALLBACK_MAX_ATTEMPTS: attempts before a callback is given up (failed). */
  maxAttempts: number
  /** RUN_CALLBACK_RETRY_SECONDS: the wait after the first failed attempt, doubled after each next one. */
  retrySeconds: number
  /** The purge of orphaned callbacks runs at most this often. */
  sweepMs: number
  /** RUN_RETENTION_HOURS: a callback whose run is gone is deleted once it is this old. */
  retentionHours: number
  log: Logger
  /** The body of an A2A push notification (a callback whose format is not 'webhook'): the run as that task. */
  pushBody: (run: StoredRun, callback: StoredCallback) => string
}

/** The longest wait between two attempts, however many failed. */
const MAX_RETRY_SECONDS = 3600

/** The delivery's id (webhook-id): the same at every attempt, so a receiver that got it already can tell. */
const messageIdOf = (callback: StoredCallback) => `msg_${callback.id.replace(/^cb_/, '')}`

/**
 * Delivers runs' completion webhooks, whichever process ended the run: claims a due one (its run ended, or its retry's
 * time came), posts the run to it, and records the outcome: delivered on a 2xx, retried with exponential back-off on
 * anything else (an error status, a redirect, no answer), failed once its attempts are spent. A worker that dies
 * mid-delivery leaves the callback to be claimed again once its lease passes: a receiver may get a delivery twice
 * (the same webhook-id), never none while attempts are left.
 */
export class CallbackWorker {
  readonly #options: CallbackWorkerOptions
  #stopped = false
  #sweptAt = 0

  constructor (options: CallbackWorkerOptions) {
    this.#options = options
  }

  stop (): void {
    this.#stopped = true
  }

  /**
   * Delivers one due callback: of that run (a job engine's delivery, then the run's next ones), or the oldest due (a
   * first attempt only if its run ended `endedFor` seconds ago).
   */
  async runOnce (runId?: string, endedFor = 0): Promise<'idle' | 'delivered' | 'retry' | 'failed'> {
    if (this.#stopped) return 'idle'
    const { ledger } = this.#options
    const callback = await ledger.runCallbacks.claim({
      ...(runId === undefined ? {} : { runId }),
      now: now(),
      leaseUntil: later(CALLBACK_TIMEOUT_MS / 1000 + 30),
      ...(endedFor > 0 ? { endedBefore: later(-endedFor) } : {})
    })
    if (callback === null) {
      await this.#sweep()
      return 'idle'
    }
    const result = await this.#deliver(callback)
    // A job names a run, which may have several callbacks (A2A's push configs): the next one due goes now too.
    if (runId !== undefined) await this.runOnce(runId)
    return result
  }

  async #deliver (callback: StoredCallback): Promise<'delivered' | 'retry' | 'failed'> {
    const { ledger, sender, maxAttempts, retrySeconds, log } = this.#options
    const ids = { runId: callback.runId, callbackId: callback.id, attempt: callback.attempts }
    const run = await ledger.runs.get(callback.runId)
    if (run === null) {
      await ledger.runCallbacks.settle(callback.id, { state: 'failed', nextAttemptAt: null, lastStatus: null, lastError: 'the run is gone', at: now() })
      return 'failed'
    }
    const body = callback.format === 'webhook'
      ? JSON.stringify({ type: `run.${run.status}` as RunCallbackBody['type'], timestamp: now(), data: runView(run) } satisfies RunCallbackBody)
      : this.#options.pushBody(run, callback)
    const result = await sender.send(callback, messageIdOf(callback), body)
    const at = now()
    if ('status' in result && result.status >= 200 && result.status < 300) {
      await ledger.runCallbacks.settle(callback.id, { state: 'delivered', nextAttemptAt: null, lastStatus: result.status, lastError: null, at })
      log.info({ ...ids, status: result.status }, 'run callback delivered')
      return 'delivered'
    }
    const lastStatus = 'status' in result ? result.status : null
    const lastError = 'status' in result ? `the receiver answered HTTP ${result.status}` : result.error
    if (callback.attempts >= maxAttempts) {
      await ledger.runCallbacks.settle(callback.id, { state: 'failed', nextAttemptAt: null, lastStatus, lastError, at })
      // The URL is the caller's, and may carry a token of theirs in its query: it is not logged.
      log.warn({ ...ids, status: lastStatus, error: lastError }, 'run callback given up')
      return 'failed'
    }
    const wait = Math.min(retrySeconds * 2 ** (callback.attempts - 1), MAX_RETRY_SECONDS)
    await ledger.runCallbacks.settle(callback.id, { state: 'pending', nextAttemptAt: later(wait), lastStatus, lastError, at })
    log.info({ ...ids, status: lastStatus, error: lastError, retryInSeconds: wait }, 'run callback not delivered: retried')
    return 'retry'
  }

  /** Deletes callbacks whose run was purged (or never made), at most once every sweepMs in this process. */
  async #sweep (): Promise<void> {
    if (Date.now() - this.#sweptAt < this.#options.sweepMs) return
    this.#sweptAt = Date.now()
    await this.#options.ledger.runCallbacks.purgeOrphans(later(-this.#options.retentionHours * 3600), 1000)
  }
}
