import type { BeeEvents } from '../bee.js'
import type { Execution, ExecutionOutcome, HoneySerializer } from '../execution/execution.js'
import type { Executor, Runner } from '../execution/executor.js'
import type { Ledger } from '../ledger/ledger.js'
import { checkedEvents } from './checked-events.js'

export interface StreamCallOptions {
  executor: Executor
  ledger: Ledger
  /** RUN_MAX_SECONDS: the limit of a stream whose Bee declares no maxRunSeconds. */
  runMaxSeconds: number
  /** HOLD_TIMEOUT_SECONDS: how long the hold outlives the stream's limit. */
  holdTimeoutSeconds: number
}

const AS_JSON: HoneySerializer = { serialize: (honey) => JSON.stringify(honey) }

/**
 * A stream Bee's call answered as a stream, once the pipeline admitted it and placed its hold: the hold made to last
 * the stream's limit (its maxRunSeconds), then the Bee run with its events checked and handed to `events` as they
 * come. The sale is the pipeline's: captured once when the stream ended with its result (which needs an event before
 * it), voided when it failed, an event broke the eventSchema, or `signal` stopped it (the client went, or read too slowly).
 */
export async function streamCall (options: StreamCallOptions, execution: Execution, input: unknown, events: BeeEvents,
  signal: AbortSignal): Promise<ExecutionOutcome> {
  const { bee, hold, log } = execution
  const seconds = bee.record.config.maxRunSeconds ?? options.runMaxSeconds
  if (hold !== null) await options.ledger.holds.renew(hold.id, seconds + options.holdTimeoutSeconds)
  return await options.executor.run(execution, input, AS_JSON, { events: checkedEvents(bee, events, log), signal, timeoutMs: seconds * 1000 })
}

/**
 * The runner of a door that relays a stream's events within its answer (MCP's progress notifications): a stream Bee's
 * call streamed as above, any other Bee's run whole, as without it.
 */
export const relayingRunner = (options: StreamCallOptions, events: BeeEvents, signal: AbortSignal): Runner =>
  async (execution, input) => execution.bee.record.config.executionMode === 'stream'
    ? await streamCall(options, execution, input, events, signal)
    : await options.executor.run(execution, input)
