import type { CallToolRequestParams, CallToolResult } from '@modelcontextprotocol/server'
import type { ExecutionOutcome, ExecutionRequest } from '../../core/execution/execution.js'
import type { Logger } from '../../core/logger.js'
import { fromMicros } from '../../core/money.js'
import { MCP_PAYMENT_META, MCP_PAYMENT_RESPONSE_META } from '../../core/x402/schemas.js'
import { fromApiError, type Era } from './errors.js'
import { FIND_BEES, findBees } from './find-bees.js'
import { META, pinOf } from './meta.js'
import type { McpOptions, Relay } from './options.js'
import { progressEvents, type ProgressChannel } from './progress.js'

/** What the HTTP request around an MCP request carries for it. */
export interface CallContext {
  /** X-Registry-Wallet-Token of the HTTP request, if any. */
  walletToken: string | undefined
  /** Idempotency-Key of the HTTP request as received (the core checks it). */
  idempotencyKey: string | string[] | undefined
  requestId: string
  log: Logger
  /** The address the request came in at, for the links in a resource (throws the app's 400 for a Host it refuses). */
  baseUrl: () => string
  /** Where a call's notifications/progress go, made when a call asks for them; absent where none can be sent (a JSON answer). */
  progress?: () => ProgressChannel
}

/** A string `_meta` value, or undefined. */
export const metaString = (meta: Record<string, unknown> | undefined, key: string) => {
  const value = meta?.[key]
  return typeof value === 'string' ? value : undefined
}

/**
 * The core's request for a tools/call. The HTTP headers win over `_meta`: they are what a gateway in
 * front of Apiary sees and may set (an operator can inject a wallet for a whole MCP client), and a
 * client that puts one in both places sends the same one. `_meta` serves clients whose MCP
 * configuration cannot set headers.
 */
export function executionRequest (params: CallToolRequestParams, context: CallContext): ExecutionRequest {
  const meta = params._meta as Record<string, unknown> | undefined
  return {
    beeId: params.name,
    input: params.arguments ?? {},
    walletToken: context.walletToken ?? metaString(meta, META.walletToken),
    idempotencyKey: context.idempotencyKey ?? meta?.[META.idempotencyKey],
    // x402's MCP transport: the payment payload as an object in _meta, not a header.
    x402Payment: meta?.[MCP_PAYMENT_META],
    resource: `mcp://tool/${params.name}`,
    requestId: context.requestId,
    log: context.log,
    version: pinOf(meta?.[META.beeVersion])
  }
}

/**
 * The core's outcome as a tools/call result: Honey's `result` is the structuredContent (it passed the
 * Bee's outputSchema in the core), its JSON the text, and the rest of Honey (plus the charge, when
 * there was one, in the Bee's currency) the `_meta`.
 */
export function toCallResult (beeId: string, outcome: ExecutionOutcome, era: Era): CallToolResult {
  if (!outcome.ok) return fromApiError(beeId, outcome.error, era)
  const { honey, replayed, charge, payment } = outcome
  const result = honey.result as Record<string, unknown>
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result,
    _meta: {
      [META.beeId]: honey.beeId,
      [META.timestamp]: honey.timestamp,
      [META.confidence]: honey.confidence,
      [META.freshness]: honey.freshness,
      [META.replayed]: replayed,
      ...(charge === null
        ? {}
        : { [META.charge]: { amount: fromMicros(charge.micros), balance: fromMicros(charge.balanceMicros), currency: charge.currency } }),
      ...(payment === null ? {} : { [MCP_PAYMENT_RESPONSE_META]: payment })
    }
  }
}

/** A call's relay of its stream Bee's events, as notifications/progress: when it sent a progressToken and they can be sent. */
function relayOf (params: CallToolRequestParams, context: CallContext): Relay | undefined {
  const token = params._meta?.progressToken
  if (token === undefined || context.progress === undefined) return undefined
  const channel = context.progress()
  return { events: progressEvents(token, channel), signal: channel.signal }
}

/**
 * A tools/call: find_bees, or the Bee named, through the core. What the SDK's server runs for it, and
 * what the endpoint's fast path runs without one (tools-call.ts).
 */
export async function callTool (options: McpOptions, context: CallContext, params: CallToolRequestParams, era: Era): Promise<CallToolResult> {
  const { board, search, listing, execute } = options
  try {
    if (params.name === FIND_BEES) return await findBees(listing, board, search, params.arguments, era)
    // Answered as soon as the core has captured: nothing is awaited between the two.
    return toCallResult(params.name, await execute(executionRequest(params, context), relayOf(params, context)), era)
  } catch (error) {
    // The ledger away (find_bees searches it) is a tool error the model can act on: retry later, as for any other 503.
    const refused = options.storeRefusal(error)
    if (refused === null) throw error
    return fromApiError(params.name, refused, era)
  }
}
