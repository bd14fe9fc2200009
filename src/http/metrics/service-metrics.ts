import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { ExecutionMetrics } from '../../core/execution/execution-metrics.js'
import type { RegisteredBee } from '../../core/registry.js'
import type { RunResult } from '../../core/preparations/worker.js'

/** Seconds: from a cached discovery answer (well under a millisecond) to a slow remote Bee. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** A preparation crawls a site: seconds to minutes. */
const RUN_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200]

/** The `bee` label of every published Bee: see beeLabel. */
export const PUBLISHED_BEE_LABEL = 'published'

/**
 * A built-in Bee by its id; every published Bee as one label value. A label per published Bee grew with the
 * catalog: a series per Bee called (a histogram's 17), kept for the life of the process and sent at every scrape,
 * 170,000 lines after 10,000 Bees. Each published Bee's own calls, success rate and latency are its health figures.
 */
const beeLabel = (bee: RegisteredBee) => bee.remote ? PUBLISHED_BEE_LABEL : bee.record.id

/**
 * Every figure an operator watches, in one prom-client registry of this app's own (never the global
 * one, so two apps in one process, as in the tests, count apart). Names follow Prometheus's
 * conventions: apiary_ prefix, base units, _total on counters.
 */
export class ServiceMetrics implements ExecutionMetrics {
  readonly registry = new Registry()
  readonly #http: Histogram<'method' | 'route' | 'status'>
  readonly #beeCalls: Counter<'bee' | 'outcome'>
  readonly #beeSeconds: Histogram<'bee' | 'remote'>
  readonly #holds: Counter
  readonly #captures: Counter
  readonly #voids: Counter<'reason'>
  readonly #refusals: Counter<'code'>
  readonly #replays: Counter
  readonly #rateLimited: Counter<'scope'>
  readonly #preparationRuns: Histogram<'result'>

  constructor (preparationCounts: () => Promise<Record<string, number>>) {
    const registers = [this.registry]
    // Event-loop lag, heap, GC, handles and the process's CPU and memory.
    collectDefaultMetrics({ register: this.registry })
    this.#http = new Histogram({
      name: 'apiary_http_request_duration_seconds',
      help: 'HTTP requests by method, route (its pattern) and status, and how long each took to answer.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers
    })
    this.#beeCalls = new Counter({
      name: 'apiary_bee_calls_total',
      help: 'Bee runs on every door, by Bee (a built-in\'s id; bee="published" for all published Bees) and outcome (ok: an answer was served; failed: the Bee or its output failed).',
      labelNames: ['bee', 'outcome'],
      registers
    })
    this.#beeSeconds = new Histogram({
      name: 'apiary_bee_call_duration_seconds',
      help: 'How long a Bee run took, output check and capture included, by Bee (a built-in\'s id; bee="published" for all published Bees); for a remote Bee (remote="true") this is the upstream round trip.',
      labelNames: ['bee', 'remote'],
      buckets: LATENCY_BUCKETS,
      registers
    })
    this.#holds = new Counter({ name: 'apiary_ledger_holds_total', help: 'Holds placed on wallets before a paid Bee ran.', registers })
    this.#captures = new Counter({ name: 'apiary_ledger_captures_total', help: 'Holds captured: answers sold.', registers })
    this.#voids = new Counter({
      name: 'apiary_ledger_voids_total',
      help: 'Holds voided: the call failed (reason="failure"), or nobody settled it in time and the sweeper did (reason="expired").',
      labelNames: ['reason'],
      registers
    })
    this.#refusals = new Counter({ name: 'apiary_payment_refusals_total', help: '402 answers, by code.', labelNames: ['code'], registers })
    this.#replays = new Counter({ name: 'apiary_idempotent_replays_total', help: 'Stored answers replayed for a repeated Idempotency-Key or x402 payment.', registers })
    this.#rateLimited = new Counter({
      name: 'apiary_rate_limited_total',
      help: 'Requests refused with 429: by the caller\'s limit (scope="caller") or a Bee\'s own (scope="bee").',
      labelNames: ['scope'],
      registers
    })
    this.#preparationRuns = new Histogram({
      name: 'apiary_preparation_run_duration_seconds',
      help: 'Website preparation runs by result (completed, failed, retry, abandoned, interrupted) and how long each took.',
      labelNames: ['result'],
      buckets: RUN_BUCKETS,
      registers
    })
    // Read from the ledger when scraped, so every instance reports the shared queue as it is.
    const queue = new Gauge({
      name: 'apiary_preparations',
      help: 'Website preparation records by status: queued and running are the queue\'s depth.',
      labelNames: ['status'],
      registers,
      async collect () {
        queue.reset()
        for (const [status, count] of Object.entries(await preparationCounts())) queue.set({ status }, count)
      }
    })
  }

  request (method: string, route: string, status: number, seconds: number): void {
    this.#http.observe({ method, route, status }, seconds)
  }

  ran (bee: RegisteredBee, ok: boolean, seconds: number): void {
    const id = beeLabel(bee)
    this.#beeCalls.inc({ bee: id, outcome: ok ? 'ok' : 'failed' })
    this.#beeSeconds.observe({ bee: id, remote: String(bee.remote) }, seconds)
  }

  held (): void {
    this.#holds.inc()
  }

  settled (captured: boolean): void {
    if (captured) this.#captures.inc()
    else this.#voids.inc({ reason: 'failure' })
  }

  swept (voided: number): void {
    this.#voids.inc({ reason: 'expired' }, voided)
  }

  paymentRefused (code: string): void {
    this.#refusals.inc({ code })
  }

  replayed (): void {
    this.#replays.inc()
  }

  beeRateLimited (): void {
    this.#rateLimited.inc({ scope: 'bee' })
  }

  callerRateLimited (): void {
    this.#rateLimited.inc({ scope: 'caller' })
  }

  preparationRan (result: RunResult, seconds: number): void {
    this.#preparationRuns.observe({ result }, seconds)
  }
}
