import type { IncomingHttpHeaders } from 'node:http'
import { classifyInboundRequest, isJsonContentType, parseJSONRPCMessage, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCRequest } from '@modelcontextprotocol/server'

/** A header as a web Headers object reads it: repeated values joined. */
const headerOf = (value: string | string[] | undefined): string | undefined => Array.isArray(value) ? value.join(', ') : value

/**
 * Whether the SDK's stateless Streamable HTTP transport, in JSON mode, takes a 2025-era request with
 * these headers and answers it 200 in JSON: an Accept of both JSON and SSE, a JSON Content-Type, and no
 * MCP-Protocol-Version or a supported one (all 2025-era: the 2026-07-28 revision is not in that list).
 */
export function answeredInJson (headers: IncomingHttpHeaders): boolean {
  const accept = headerOf(headers.accept)
  if (accept === undefined || !accept.includes('application/json') || !accept.includes('text/event-stream')) return false
  if (!isJsonContentType(headerOf(headers['content-type']) ?? null)) return false
  const protocolVersion = headerOf(headers['mcp-protocol-version'])
  return protocolVersion === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)
}

/**
 * The request, parsed as the SDK parses it, when the SDK's stateless Streamable HTTP transport would
 * serve it and answer 200 in JSON: one 2025-era JSON-RPC request (no initialize, no 2026-07-28
 * envelope) whose headers pass that transport's checks (`answeredInJson`).
 * Anything else, undefined: it goes the SDK's whole way, which answers it (or refuses it) itself.
 * The classification is the SDK's own, so the two never disagree on the era.
 */
export function directRequest (headers: IncomingHttpHeaders, message: unknown): JSONRPCRequest | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined
  const route = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: headerOf(headers['mcp-protocol-version']),
    mcpMethodHeader: headerOf(headers['mcp-method']),
    mcpNameHeader: headerOf(headers['mcp-name']),
    body: message
  })
  if (route.kind !== 'legacy' || route.reason !== 'no-claim' || !answeredInJson(headers)) return undefined
  let parsed
  try {
    parsed = parseJSONRPCMessage(message)
  } catch {
    return undefined
  }
  return 'method' in parsed && 'id' in parsed ? parsed : undefined
}
