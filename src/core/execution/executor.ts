import { ApiError } from '../errors.js'
import type { HealthRecorder } from '../health/recorder.js'
import { verdictOf } from '../health/verdict.js'
import { claimKey, releaseKey, type IdempotencyLimits, type Replay } from '../idempotency/claims.js'
import type { Ledger } from '../ledger/ledger.js'
import type { BeeLimiter } from '../limits/bee-limiter.js'
import type { Registry } from '../registry.js'
import type { StoreHealth } from '../store-health.js'
import type { Stepped } from '../stepped.js'
import { admit, validateInput, type Admission } from './admission.js'
import { limitBeeCalls } from './bee-limit.js'
import type { Execution, ExecutionOutcome, ExecutionRequest, Honey, HoneySerializer, Step } from './execution.js'
import type { ExecutionMetrics } from './execution-metrics.js'
import { holdPayment } from './payment.js'
import type { PaymentOptions } from './payment-required.js'
import { runAndSell, type StreamingContext } from './sale.js'
import { claimPayment } from '../x402/payment-claim.js'
import type { CallbackTarget, RunService, StartedRun } from '../runs/service.js'

export interface ExecutorOptions {
  registry: Registry
  ledger: Ledger
  idempotency: IdempotencyLimits
  payment: PaymentOptions
  /** Counts the calls to Bees that have a limit of their own (in memory, or shared through Redis). */
  beeLimiter: BeeLimiter
  /** Told what each step did; null: nothing is counted. */
  metrics: ExecutionMetrics | null
  /** Counts each run for the Bee's health figures (what it says about the Bee; see verdictOf). */
  health: HealthRecorder
  /** Turns the ledger database's failures into 503s, counted toward its outage. */
  store: StoreHealth
}

/** What a door that can hand back a run needs of the run service: a run replayed under its Idempotency-Key, or started. */
export type RunStarter = Pick<RunService, 'replay' | 'admit' | 'start'>

/** How a door runs the Bee once its hold is placed: by default whole (`Executor.run`); MCP's progress relays a stream's events. */
export type Runner = (execution: Execution, input: unknown) => Promise<ExecutionOutcome>

/** An async Bee's call that became a run (or found the run its Idempotency-Key started). */
export type RunStartOutcome = { ok: true, run: StartedRun }

const refusedPayment = (step: Step) => !step.ok && step.error.statusCode === 402

const AS_JSON: HoneySerializer = { serialize: (honey) => JSON.stringify(honey) }

/**
 * The one execution pipeline: admit → validate → claim the idempotency key → the Bee's own rate limit → hold → run → check
 * output → Honey → capture | void. `execute` runs it whole for doors that hand over a call at once
 * (MCP, jobs); HTTP's execute routes call the steps from their hooks, so that validation still comes
 * from each Bee's route schema and payment stays a preHandler. Either way the money moves here only.
 */
export class Executor {
  readonly #options: ExecutorOptions

  constructor (options: ExecutorOptions) {
    this.#options = options
  }

  admit (admission: Admission): Stepped<Step<{ execution: Execution }>> {
    return admit(this.#options.registry, admission)
  }

  validate (execution: Execution, input: unknown): Step {
    return validateInput(execution, input)
  }

  /**
   * A call paid with x402 (a pay-per-use Bee, no wallet token, a payment presented, x402 on) claims its
   * payment, which is its idempotency key; any other call claims its Idempotency-Key, if it sent one.
   * A call with neither, the usual one, has nothing to claim and is answered without a promise.
   */
  claim (execution: Execution, key: unknown, input: unknown): Stepped<Step<{ replay: Replay | null }>> {
    const paysWithX402 = execution.bee.paid && execution.tokenHash === null && execution.presentedPayment !== null &&
      this.#options.payment.x402?.accepts(execution.bee) === true
    if (key === undefined && !paysWithX402) return { ok: true, replay: null }
    return this.#claim(execution, key, input, paysWithX402)
  }

  async #claim (execution: Execution, key: unknown, input: unknown, paysWithX402: boolean): Promise<Step<{ replay: Replay | null }>> {
    const { ledger, idempotency, payment, metrics } = this.#options
    const claimed = paysWithX402
      ? await claimPayment(ledger, idempotency, payment, execution, input)
      : await claimKey(ledger, idempotency, execution, key, input, payment.tokens)
    if (metrics !== null) {
      if (claimed.ok && claimed.replay !== null) metrics.replayed()
      if (!claimed.ok && refusedPayment(claimed)) metrics.paymentRefused(claimed.error.code)
    }
    return claimed
  }

  /**
   * The Bee's own limit, counted across all its callers (429 BEE_RATE_LIMITED); before the hold, so never charged.
   * A Bee without one has nothing to count: answered without a promise.
   */
  limit (execution: Execution): Stepped<Step> {
    if (execution.bee.callsPerMinute === null) return { ok: true }
    return this.#limit(execution)
  }

  async #limit (execution: Execution): Promise<Step> {
    const limited = await limitBeeCalls(this.#options.beeLimiter, execution)
    if (!limited.ok) this.#options.metrics?.beeRateLimited()
    return limited
  }

  /** The payment step (see holdPayment); a free Bee has nothing to hold: answered without a promise. */
  hold (execution: Execution): Stepped<Step> {
    if (!execution.bee.paid) return { ok: true }
    return this.#hold(execution)
  }

  async #hold (execution: Execution): Promise<Step> {
    const held = await holdPayment(this.#options.ledger, execution, this.#options.payment)
    const { metrics } = this.#options
    if (metrics !== null) {
      if (!held.ok && refusedPayment(held)) metrics.paymentRefused(held.error.code)
      if (held.ok && execution.hold !== null) metrics.held()
    }
    return held
  }

  async run (execution: Execution, input: unknown, serializer: HoneySerializer = AS_JSON, streaming?: StreamingContext): Promise<ExecutionOutcome> {
    const { metrics, health } = this.#options
    const started = performance.now()
    let outcome: ExecutionOutcome | undefined
    try {
      outcome = await runAndSell(this.#options.ledger, execution, input, serializer, this.#options.payment, streaming)
      return outcome
    } finally {
      const ms = performance.now() - started
      const verdict = verdictOf(outcome)
      if (verdict !== null) health.record(execution.bee.record.id, verdict, ms)
      if (metrics !== null) {
        const ok = outcome?.ok === true
        metrics.ran(execution.bee, ok, ms / 1000)
        if (execution.hold !== null) metrics.settled(ok)
        if (outcome !== undefined && refusedPayment(outcome)) metrics.paymentRefused((outcome as { error: ApiError }).error.code)
      }
    }
  }

  /**
   * Frees the key of an execution that did not complete; call it once the call has ended, whatever its outcome.
   * Nothing to free (no key was claimed, or the sale completed it): undefined, without a promise.
   */
  release (execution: Execution): Stepped<void> {
    return execution.claim === null ? undefined : this.#release(execution)
  }

  /**
   * A key that cannot be freed (the database away) stays claimed until its lease ends, and its retry is told
   * IDEMPOTENCY_IN_FLIGHT until then: the call's own answer stands either way.
   */
  async #release (execution: Execution): Promise<void> {
    try {
      await releaseKey(this.#options.ledger, execution)
    } catch (error) {
      if (!this.#options.store.absorbed(error)) execution.log.error({ err: error }, 'could not free the Idempotency-Key')
    }
  }

  /** The whole pipeline for doors that hand over a call at once; the ledger database away is a 503 outcome, not a throw. */
  async execute (request: ExecutionRequest, runner?: Runner): Promise<ExecutionOutcome> {
    return await this.#guarded(this.#execute(request, null, null, runner)) as ExecutionOutcome
  }

  /**
   * As `execute`, but an async Bee's call becomes a run, as over HTTP: the same admission, the caller's Idempotency-Key
   * giving back the run it started, the Bee's limit and the hold, which then lasts the run (RunService.start). A sync
   * Bee's call runs whole, as `execute` runs it (and ignores `callback`, as HTTP ignores a sync call's Callback-Url).
   */
  async executeOrStart (request: ExecutionRequest, runs: RunStarter, callback: CallbackTarget | null = null): Promise<ExecutionOutcome | RunStartOutcome> {
    return await this.#guarded(this.#execute(request, runs, callback))
  }

  async #guarded<T> (work: Promise<T>): Promise<T | { ok: false, error: ApiError }> {
    try {
      return await work
    } catch (error) {
      const refused = error instanceof ApiError && error.statusCode < 500 ? error : this.#options.store.refusal(error)
      if (refused === null) throw error
      return { ok: false, error: refused }
    }
  }

  async #execute (request: ExecutionRequest, runs: RunStarter | null, callback: CallbackTarget | null,
    runner?: Runner): Promise<ExecutionOutcome | RunStartOutcome> {
    const admitted = await this.admit({
      bee: request.beeId,
      walletToken: request.walletToken,
      x402Payment: request.x402Payment,
      resource: request.resource,
      requestId: request.requestId,
      log: request.log,
      version: request.version
    })
    if (!admitted.ok) return admitted
    const { execution } = admitted
    const valid = this.validate(execution, request.input)
    if (!valid.ok) return valid
    if (runs !== null && execution.bee.record.config.executionMode !== 'sync') return await this.#start(execution, request, runs, callback)
    try {
      const claimed = await this.claim(execution, request.idempotencyKey, request.input)
      if (!claimed.ok) return claimed
      if (claimed.replay !== null) {
        const { body, payment } = claimed.replay
        return { ok: true, honey: JSON.parse(body) as Honey, body, replayed: true, charge: null, payment: payment ?? null }
      }
      const limited = await this.limit(execution)
      if (!limited.ok) return limited
      const held = await this.hold(execution)
      if (!held.ok) return held
      return await (runner === undefined ? this.run(execution, request.input) : runner(execution, request.input))
    } finally {
      await this.release(execution)
    }
  }

  /**
   * The steps of HTTP's run calls (src/http/execute/runs.ts), in its order: replay, the runs' own admission (the
   * caller's limit of runs), the Bee's limit, the hold, the run.
   */
  async #start (execution: Execution, request: ExecutionRequest, runs: RunStarter,
    callback: CallbackTarget | null): Promise<ExecutionOutcome | RunStartOutcome> {
    const replayed = await runs.replay(execution, request.idempotencyKey, request.input)
    if (replayed !== null) return { ok: true, run: { run: replayed, runKey: null, callbackSecret: null, created: false } }
    await runs.admit(execution, callback)
    const limited = await this.limit(execution)
    if (!limited.ok) return limited
    const held = await this.hold(execution)
    if (!held.ok) return held
    const key = request.idempotencyKey
    return { ok: true, run: await runs.start(execution, request.input, typeof key === 'string' ? key : null, callback) }
  }
}
