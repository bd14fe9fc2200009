import { Type } from 'typebox'
import { shared, type ErrorBody } from '../../core/schemas.js'

const JsonRpcId = Type.Unknown({ description: 'The request id (string or number) the response answers; null when it could not be read.' })

export const JsonRpcRequest = Type.Object({
  jsonrpc: Type.String({ enum: ['2.0'], description: 'Always "2.0".' }),
  id: Type.Optional(Type.Unknown({ description: 'Request id (string or number); absent for a notification.' })),
  method: Type.String({ description: 'MCP method: initialize, tools/list, tools/call, server/discover, ping, notifications/…' }),
  params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Method parameters; `_meta` carries "ai.apiary/walletToken" and "ai.apiary/idempotencyKey" on tools/call.' }))
}, { description: 'A JSON-RPC 2.0 message of the Model Context Protocol.', examples: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }] })

export const JsonRpcError = shared('McpErrorResponse', Type.Object({
  jsonrpc: Type.String({ enum: ['2.0'], description: 'Always "2.0".' }),
  id: JsonRpcId,
  error: Type.Object({
    code: Type.Integer({ description: 'JSON-RPC error code: -32700 parse error, -32600 invalid request, -32601 unknown method, -32602 invalid params (unknown or inactive tool, bad cursor), -32603 internal error.' }),
    message: Type.String({ description: 'What went wrong.' }),
    data: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Apiary\'s error body `{error, code, message}` when Apiary refused the request.' }))
  }, { description: 'The error.' })
}, { description: 'A JSON-RPC error response of the MCP endpoint.' }))

export const JsonRpcResponse = Type.Object({
  jsonrpc: Type.String({ enum: ['2.0'], description: 'Always "2.0".' }),
  id: JsonRpcId,
  result: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'The method\'s result (a tool\'s outcome is a result too, with isError when it failed).' })),
  error: Type.Optional(JsonRpcError.properties.error)
}, { description: 'A JSON-RPC response: a result or an error.' })

/**
 * A request the app refused before the MCP server saw it (not JSON, too deep, too large, not UTF-8, …)
 * as the JSON-RPC error the protocol answers it with: the app's error body goes in `data`, and the HTTP
 * status stays the one the app gives such a request everywhere else.
 */
export function jsonRpcRefusal (status: number, body: ErrorBody) {
  const code = status >= 500 ? -32603 : body.code === 'INVALID_JSON' ? -32700 : -32600
  return { jsonrpc: '2.0', id: null, error: { code, message: body.message, data: body } }
}
