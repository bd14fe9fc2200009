import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server'
import type { ErrorCode } from '../../core/error-catalog.js'
import { bodyOf, type ApiError } from '../../core/errors.js'
import { PaymentRequiredError } from '../../core/execution/payment-required.js'

/** The protocol era of the exchange: 2025-era clients (initialize handshake) or 2026-07-28 (per-request envelope). */
export type Era = 'legacy' | 'modern'

/**
 * A 402 body as an x402-aware MCP client recognises it (x402 MCP transport: `isError` with an object
 * holding `x402Version` and `accepts`). With x402 on, `accepts` is the offer for this call, to be paid
 * in `_meta["x402/payment"]`; without, it is empty: such a client sees that payment is required and
 * that it has no scheme to pay with here, and the same body tells a model which header wants a funded
 * wallet token.
 */
function withX402 (beeId: string, body: Record<string, unknown>, error: ApiError): Record<string, unknown> {
  const offer = error instanceof PaymentRequiredError ? error.offer : null
  return {
    ...body,
    x402Version: 2,
    resource: offer?.resource ?? { url: `mcp://tool/${beeId}`, mimeType: 'application/json' },
    accepts: offer?.accepts ?? []
  }
}

/**
 * A tool execution error: the HTTP error body, as text and, on the 2026-07-28 revision, as
 * structuredContent. 2025-era answers carry the text alone: the 1.x TypeScript SDK client checks
 * structuredContent against the tool's outputSchema even on an error result and
 * throws away the answer (typescript-sdk#1943), while the text form is what x402 clients fall back to.
 */
export function toolError (body: Record<string, unknown>, era: Era): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    ...(era === 'modern' ? { structuredContent: body } : {})
  }
}

/**
 * What a paid tool called without a credential adds for MCP clients: those that cannot send a header
 * (most chat clients) connect with a budget through OAuth instead.
 */
const CONNECT_WITH_A_BUDGET = 'Or connect through OAuth with a budget: use this server\'s MCP URL with /mcp/oauth in place of /mcp; ' +
  'its 401 starts the sign-in, and the wallet holder sets the budget on the consent page.'

/** Refusals that mean the tool cannot be called at all: the spec's "unknown tool". */
const notCallable = new Set<ErrorCode>(['BEE_NOT_FOUND', 'BEE_INACTIVE'])

/**
 * How a refusal of the core reaches an MCP client, as the spec sorts them: a tool that does not exist
 * (or is inactive) is a protocol error, -32602 as for an unknown tool; our own fault is -32603;
 * anything the model can act on (bad arguments, payment, conflicts, an upstream failure) is a tool
 * execution error it sees and can correct. Our code travels in the error's data or in the body.
 */
export function fromApiError (beeId: string, error: ApiError, era: Era): CallToolResult {
  const body = bodyOf(error)
  if (notCallable.has(error.code)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, body)
  }
  if (error.statusCode === 500) throw new ProtocolError(ProtocolErrorCode.InternalError, error.message, body)
  const told = error.code === 'WALLET_TOKEN_MISSING' ? { ...body, connect: CONNECT_WITH_A_BUDGET } : body
  return toolError(error.statusCode === 402 ? withX402(beeId, told, error) : told, era)
}
