import { failure, failureAs, invalidCursor, RateLimitedError, type ApiError } from '../errors.js'
import type { ErrorCode } from '../error-catalog.js'
import type { Execution } from '../execution/execution.js'
import { KEY_PATTERN, requestHashOf } from '../idempotency/claims.js'
import type { Ledger } from '../ledger/ledger.js'
import type { CallbackAuthentication, CallbackFormat, NewCallback } from '../ledger/run-callbacks/run-callback-repository.js'
import type { StoredRun } from '../ledger/runs/run-repository.js'
import { hashSecret } from '../ledger/secrets.js'
import type { EgressPolicy } from '../publishing/egress.js'
import { storeFaultOf } from '../ledger/store-faults.js'
import { later, now } from '../ledger/timestamps.js'
import type { Logger } from '../logger.js'
import { newCallbackId, newCallbackSecret, newRunId, newRunKey } from './run-ids.js'
import { UNFINISHED, type Run } from './schemas.js'
import type { RunSignals } from './signals.js'
import { taskIdOf, type RunCaller } from './task-ids.js'

export type { RunCaller } from './task-ids.js'

/** Where a run's caller asked to be told it ended, and the token to send back there (A2A's), if any. */
export interface CallbackTarget {
  url: string
  token: string | null
  /** An A2A push notification config: the body's shape, the config's id within its task, the Authorization to send; absent for a run webhook. */
  push?: { format: Exclude<CallbackFormat, 'webhook'>, configId: string, authentication: CallbackAuthentication | null }
}

/** Refuses a callback URL the egress guard refuses (the check a published endpoint meets, and again at each delivery). */
export async function checkCallbackUrl (egress: Pick<EgressPolicy, 'check'>, url: string): Promise<void> {
  const problem = url.length > 2048 ? 'it is longer than 2048 characters' : await egress.check(url)
  if (problem !== null) throw failure('CALLBACK_URL_INVALID', `Callback-Url is refused: ${problem.replace(/^endpoint/, 'the URL')}.`)
}

/** A callback's row for the run `runId` (A2A's task id `taskId`), not yet written. */
export function newCallback (runId: string, taskId: string, { url, token, push }: CallbackTarget): NewCallback {
  return {
    id: newCallbackId(),
    runId,
    url,
    token,
    secret: newCallbackSecret(),
    createdAt: now(),
    ...(push === undefined ? {} : { format: push.format, configId: push.configId, authentication: push.authentication, taskId })
  }
}

export interface StartedRun {
  run: StoredRun
  /** The run key of a run without an owner, shown this once; null otherwise. */
  runKey: string | null
  /** The secret its callback is signed with, shown this once; null without a callback (or for a run started before). */
  callbackSecret: string | null
  /** False: the caller's Idempotency-Key named a run started before, which this is. */
  created: boolean
}

export interface RunServiceOptions {
  ledger: Ledger
  signals: RunSignals
  /** Told that a run was queued: its job is sent, or an idle worker woken. */
  enqueue (id: string): Promise<void>
  /** HOLD_TIMEOUT_SECONDS: how long a hold outlives its run's expiry, for the run's last settlement to find it pending. */
  holdTimeoutSeconds: number
  /** RUN_QUEUE_SECONDS. */
  queueSeconds: number
  /** RUN_MAX_SECONDS: the limit of a run whose Bee declares none. */
  runMaxSeconds: number
  /** RUN_MAX_PER_WALLET: how many unfinished runs one wallet credential may have; 0: no limit. */
  maxPerWallet: number
  /** Checks a callback URL as a published endpoint is checked. */
  egress: Pick<EgressPolicy, 'check'>
  log: Logger
}

const notFound = (id: string) => failure('RUN_NOT_FOUND', `No run you started has the id "${id}". A free Bee's run is read with the run key its Location gave.`)

/** A run as its caller sees it; the run key and the callback's secret only in the answer that started it. */
export function runView (run: StoredRun, runKey: string | null = null, callbackSecret: string | null = null): Run {
  return {
    id: run.id,
    beeId: run.beeId,
    status: run.status,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    expiresAt: run.expiresAt,
    maxRunSeconds: run.maxRunSeconds,
    progress: run.progress,
    // An answer kept but not yet sold is not served.
    honey: run.status !== 'succeeded' || run.honey === null ? null : JSON.parse(run.honey) as Record<string, unknown>,
    error: run.error === null ? null : { code: run.error.code, message: run.error.message },
    ...(runKey === null ? {} : { runKey }),
    ...(callbackSecret === null ? {} : { callbackSecret })
  }
}

/** How long a caller at its limit of runs is told to wait: runs are polled at about this pace. */
const RUN_LIMIT_RETRY_SECONDS = 5

/** Why a run failed or expired, as the error a sync call would have answered with; null for a run that did not. */
export function runErrorOf (run: StoredRun): ApiError | null {
  if (run.error === null) return null
  const { code, status, message } = run.error
  return failureAs(code as ErrorCode, (status ?? 500) as never, message)
}

/**
 * Runs of async Bees: starting one once the pipeline admitted, validated and held for the call, and what its caller
 * asks of it afterwards. Only the caller who started a run finds it: by the wallet credential that paid, or, for a
 * free Bee's run started without one, by its run key. Anyone else's run is not found, as if it did not exist.
 */
export class RunService {
  readonly #options: RunServiceOptions

  constructor (options: RunServiceOptions) {
    this.#options = options
  }

  /**
   * Refuses, before the hold, a run its caller may not start: a callback URL the egress guard refuses (the same check
   * as a published endpoint's, and again at each delivery), or a wallet credential with RUN_MAX_PER_WALLET runs
   * unfinished already. A free Bee's run started without a credential has no wallet to count.
   */
  async admit (execution: Execution, callback: CallbackTarget | null): Promise<void> {
    const { egress, ledger, maxPerWallet } = this.#options
    if (callback !== null) await checkCallbackUrl(egress, callback.url)
    if (maxPerWallet === 0 || execution.tokenHash === null) return
    if (await ledger.runs.countUnfinished(execution.tokenHash) >= maxPerWallet) {
      throw new RateLimitedError('RUN_LIMIT_REACHED', `This wallet token has ${maxPerWallet} runs queued or running, the most it may have at once; ` +
        'start this one when one of them has ended. Nothing was charged.', RUN_LIMIT_RETRY_SECONDS)
    }
  }

  /**
   * Queues a run of the admitted call. Its hold (placed already) is made to last the run's whole life: until its
   * expiry, and HOLD_TIMEOUT_SECONDS beyond, so the sweeper never voids the hold of a run still allowed to finish.
   * The caller's Idempotency-Key (with a wallet credential only: a key is scoped to it) returns the first run, and
   * voids this call's hold. A callback is written before its run, so a run never lacks the callback its caller was
   * promised; one whose run was not made (the key named an earlier run) is deleted, or purged later.
   */
  async start (execution: Execution, input: unknown, idempotencyKey: string | null, callback: CallbackTarget | null = null): Promise<StartedRun> {
    const { ledger, queueSeconds, runMaxSeconds, holdTimeoutSeconds } = this.#options
    const { bee, hold, tokenHash } = execution
    const maxRunSeconds = bee.record.config.maxRunSeconds ?? runMaxSeconds
    const lifeSeconds = queueSeconds + maxRunSeconds
    const runKey = tokenHash === null ? newRunKey() : null
    const runId = newRunId()
    const callbackRow = callback === null ? null : newCallback(runId, taskIdOf({ id: runId }, runKey), callback)
    let inserted
    try {
      if (hold !== null) await ledger.holds.renew(hold.id, lifeSeconds + holdTimeoutSeconds)
      if (callbackRow !== null) await ledger.runCallbacks.insert(callbackRow)
      inserted = await ledger.runs.insert({
        id: runId,
        beeId: bee.record.id,
        ownerHash: tokenHash,
        keyHash: runKey === null ? null : hashSecret(runKey),
        input,
        idempotencyKey: tokenHash === null ? null : idempotencyKey,
        requestHash: tokenHash === null || idempotencyKey === null ? null : requestHashOf(bee.record.id, input),
        holdId: hold?.id ?? null,
        requestId: execution.requestId,
        maxRunSeconds,
        createdAt: now(),
        expiresAt: later(lifeSeconds)
      })
    } catch (error) {
      if (hold !== null) await this.#void(hold.id, execution.requestId)
      throw error
    }
    if (!inserted.inserted) {
      if (hold !== null) await this.#void(hold.id, execution.requestId)
      if (callbackRow !== null) await ledger.runCallbacks.delete(callbackRow.id)
      return { run: inserted.run, runKey: null, callbackSecret: null, created: false }
    }
    await this.#options.enqueue(inserted.run.id)
    execution.log.info({ runId: inserted.run.id, beeId: bee.record.id, callback: callbackRow !== null }, 'run queued')
    return { run: inserted.run, runKey, callbackSecret: callbackRow?.secret ?? null, created: true }
  }

  /**
   * The caller's run under this Idempotency-Key, if it started one (keys are scoped to a wallet credential, and ignored
   * without one, as a sync call ignores them on a free Bee); the key sent with another Bee or input is refused.
   */
  async replay (execution: Execution, idempotencyKey: unknown, input: unknown): Promise<StoredRun | null> {
    if (idempotencyKey === undefined) return null
    if (typeof idempotencyKey !== 'string' || !KEY_PATTERN.test(idempotencyKey)) {
      throw failure('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 visible ASCII characters; a UUID is ideal.')
    }
    if (execution.tokenHash === null) return null
    const run = await this.#options.ledger.runs.byIdempotencyKey(execution.tokenHash, idempotencyKey)
    if (run !== null && run.requestHash !== requestHashOf(execution.bee.record.id, input)) {
      throw failure('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key started a run of another Bee or with another input; use a new key for a new request.')
    }
    return run
  }

  async get (caller: RunCaller, id: string): Promise<StoredRun> {
    const run = await this.#options.ledger.runs.get(id)
    if (run === null || !readable(run, caller)) throw notFound(id)
    return run
  }

  /** The run once it ended, or as it is after `seconds`: ended here, this process says so at once; elsewhere, its row at the end. */
  async wait (run: StoredRun, seconds: number): Promise<StoredRun> {
    if (seconds <= 0 || !UNFINISHED.includes(run.status)) return run
    const ended = this.#options.signals.ended(run.id, seconds * 1000)
    // Read after listening: a run that ended in between is not waited for.
    const current = await this.#options.ledger.runs.get(run.id) ?? run
    if (!UNFINISHED.includes(current.status)) {
      this.#options.signals.end(run.id)
      return current
    }
    await ended
    return await this.#options.ledger.runs.get(run.id) ?? current
  }

  /**
   * The run once it ended (by its expiry at the latest; a minute past it, as it is, should no worker have expired it):
   * for a protocol whose read of a result waits for it (MCP's tasks/result). Awaited a second at a time, so a run ended
   * by another instance is seen within a second of its row.
   */
  async ended (run: StoredRun): Promise<StoredRun> {
    let current = run
    const until = Date.parse(run.expiresAt) + 60_000
    while (UNFINISHED.includes(current.status) && Date.now() < until) current = await this.wait(current, 1)
    return current
  }

  /**
   * Cancels a queued or running run (its hold voided, its upstream call stopped). A run that ended already, or whose
   * answer came and is being sold, is answered as it is.
   */
  async cancel (caller: RunCaller, id: string): Promise<StoredRun> {
    const { ledger, signals } = this.#options
    const run = await this.get(caller, id)
    if (!UNFINISHED.includes(run.status)) return run
    const cancelled = await ledger.runs.settle(id, { from: UNFINISHED, unanswered: true, status: 'cancelled', at: now() })
    // Ended meanwhile, or its answer is being sold: as it is.
    if (cancelled === null) return await this.get(caller, id)
    signals.stop(id)
    signals.end(id)
    if (cancelled.holdId !== null) await this.#void(cancelled.holdId, cancelled.requestId)
    this.#options.log.info({ runId: id }, 'run cancelled')
    return cancelled
  }

  async list (tokenHash: string, page: { limit: number, cursor?: string | undefined }): Promise<{ items: StoredRun[], nextCursor: string | null }> {
    const listed = await this.#options.ledger.runs.list({ ownerHash: tokenHash, ...page })
    if (!listed.ok) throw invalidCursor()
    return listed
  }

  /** A hold that cannot be voided now (the database away) stays pending until the sweeper voids it at its expiry. */
  async #void (holdId: number, requestId: string): Promise<void> {
    try {
      await this.#options.ledger.holds.void(holdId, requestId)
    } catch (error) {
      this.#options.log[storeFaultOf(error) === null ? 'error' : 'debug']({ err: error, holdId }, 'void of a run\'s hold failed')
    }
  }
}

function readable (run: StoredRun, caller: RunCaller): boolean {
  if (run.ownerHash !== null) return caller.tokenHash === run.ownerHash
  return run.keyHash !== null && caller.runKey !== undefined && hashSecret(caller.runKey) === run.keyHash
}
