import type { ExecutionOutcome } from '../execution/execution.js'
import type { Verdict } from './counts.js'

/**
 * Failures of the sale after the Bee answered well: the hold was settled under the call (the ledger was slow, not the Bee),
 * or the x402 facilitator did not settle. They say nothing about the Bee.
 */
const SALE_FAILURES: ReadonlySet<string> = new Set(['HOLD_EXPIRED', 'X402_SETTLEMENT_UNKNOWN'])

/**
 * What a run says about its Bee, or null when it says nothing (a payment refused at settlement, 402; a failed sale).
 * `undefined` is a run that threw: an unexpected error inside the Bee. Caller errors (validation, 402 before the run,
 * 429, replays) never reach the run, so they are never counted.
 */
export function verdictOf (outcome: ExecutionOutcome | undefined): Verdict | null {
  if (outcome === undefined) return 'failed'
  if (outcome.ok) return 'ok'
  const { statusCode, code } = outcome.error
  if (code === 'BEE_OUTPUT_INVALID') return 'nonconforming'
  if (statusCode === 402 || SALE_FAILURES.has(code)) return null
  return 'failed'
}
