import type { RegisteredBee } from '../registry.js'

/**
 * What the pipeline reports as it goes, for an operator's dashboards (plugins/metrics.ts counts it in
 * Prometheus). Every door runs the same steps, so every door is counted the same way.
 */
export interface ExecutionMetrics {
  /** The Bee ran: its outcome (an answer sold, or a failure, output checks included) and how long it took. */
  ran (bee: RegisteredBee, ok: boolean, seconds: number): void
  /** A hold was placed on a wallet (or a retry took over the pending hold of its key). */
  held (): void
  /** The hold was captured with the answer (true), or voided because the call failed (false). */
  settled (captured: boolean): void
  /** A call was refused payment: a 402, by its code. */
  paymentRefused (code: string): void
  /** An Idempotency-Key (or x402 payment) replayed a stored answer. */
  replayed (): void
  /** A call was refused by a Bee's own rate limit. */
  beeRateLimited (): void
}
