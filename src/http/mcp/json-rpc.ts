import { Type } from 'typebox'
import { shared } from '../../core/schemas.js'

const JsonRpcId = Type.Unknown({ description: 'The request id (string or number) the response answers; null when it could not be read.' })

export const JsonRpcRequest = Type.Object({
  jsonrpc: Type.String({ enum: ['2.0'], description: 'Always "2.0".' }),
  id: Type.Optional(Type.Unknown({ description: 'Request id (string or number); absent for a notification.' })),
  method: Type.String({ description: 'MCP method: initialize, tools/list, tools/call, server/discover, ping, notifications/…' }),
  params: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Method parameters; `_meta` carries "ai.apiary/walletToken", "ai.apiary/idempotencyKey" and "ai.apiary/beeVersion" on tools/call.' }))
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
