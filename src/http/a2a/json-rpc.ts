import { Type } from 'typebox'
import { shared } from '../../core/schemas.js'
import { RpcCode, type RpcError } from './errors.js'
import { LegacyTask } from './legacy-schemas.js'
import { Task } from './schemas.js'

type Id = string | number | null

const JsonRpcId = Type.Unknown({ description: 'The id (string or number) of the request answered; null when it could not be read.' })

export const JsonRpcRequest = Type.Object({
  jsonrpc: Type.String({ enum: ['2.0'], description: 'Always "2.0".' }),
  id: Type.Union([Type.String(), Type.Number()], { description: 'Request id; A2A calls are requests, never notifications.' }),
  method: Type.String({ description: 'An A2A method, such as SendMessage or GetTask.' }),
  params: Type.Optional(Type.Object({}, {
    additionalProperties: true,
    description: 'A SendMessageRequest: `{message: {messageId, role: "ROLE_USER", parts: [{data: {beeId, input}}]}}`; GetTask and CancelTask: `{id}`.'
  }))
}, {
  description: 'A JSON-RPC 2.0 request of the A2A JSON-RPC binding.',
  examples: [{
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: {
        messageId: 'm-1',
        role: 'ROLE_USER',
        parts: [{ data: { beeId: 'text-summarizer', input: { text: 'Bees make honey. Honey is sweet. Bears like honey.', maxLength: 5 } } }]
      }
    }
  }]
})

export const JsonRpcError = Type.Object({
  code: Type.Integer({
    description: '-32700 not JSON, -32600 not a JSON-RPC request, -32601 unknown method, -32602 invalid params (no usable data part, ' +
      'unknown or inactive Bee), -32603 internal error, -32001 task not found, -32002 task not cancelable, -32003 push notifications not supported, ' +
      '-32004 unsupported operation, -32005 content type not supported, -32009 A2A version not supported.'
  }),
  message: Type.String({ description: 'What went wrong.' }),
  data: Type.Optional(Type.Array(Type.Object({ '@type': Type.String({ description: 'The detail\'s type.' }) }, {
    additionalProperties: true,
    description: 'A google.rpc.ErrorInfo (reason: A2A\'s or Apiary\'s code), a google.rpc.BadRequest, or a google.protobuf.Struct holding Apiary\'s error body `{error, code, message}`.'
  }), { description: 'Error details (ProtoJSON Any objects).' }))
}, { title: 'A2aError', description: 'The error.' })

const envelope = { jsonrpc: Type.String({ enum: ['2.0'], description: 'Always "2.0".' }), id: JsonRpcId }

export const JsonRpcErrorResponse = shared('A2aErrorResponse', Type.Object({ ...envelope, error: JsonRpcError }, { description: 'A JSON-RPC error response of the A2A endpoint.' }))

export const JsonRpcResponse = Type.Object({
  ...envelope,
  result: Type.Optional(Type.Union([
    Type.Object({ task: Task }, { description: 'A 1.0 SendMessageResponse: the task.' }),
    Task,
    LegacyTask,
    Type.Unknown({ description: 'What another method answers (docs/agents/a2a.md).' })
  ], { description: 'The task: wrapped in `{task}` by 1.0\'s SendMessage, itself for GetTask and CancelTask and on 0.3.' })),
  error: Type.Optional(JsonRpcError)
}, { description: 'A JSON-RPC response: a result or an error.' })

export type Envelope = { ok: true, id: string | number, method: string, params: unknown } | { ok: false, id: Id, error: RpcError }

const isId = (id: unknown): id is string | number => typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))

/**
 * The parts of a JSON-RPC request, or why it is not one. A2A defines neither batches nor notifications:
 * a request without an id would run a Bee (and maybe charge) with no one to tell, so it is refused.
 */
export function readEnvelope (body: unknown): Envelope {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, id: null, error: { code: RpcCode.invalidRequest, message: 'The body must be one JSON-RPC 2.0 request object (A2A has no batches).' } }
  }
  const { jsonrpc, id, method, params } = body as Record<string, unknown>
  const answerId = isId(id) ? id : null
  const invalid = (message: string): Envelope => ({ ok: false, id: answerId, error: { code: RpcCode.invalidRequest, message } })
  if (jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0".')
  if (!isId(id)) return invalid('id must be a string or a number: A2A calls are requests, not notifications.')
  if (typeof method !== 'string') return invalid('method must be a string, such as "SendMessage".')
  return { ok: true, id, method, params }
}

export const success = (id: Id, result: unknown) => ({ jsonrpc: '2.0', id, result })
export const failure = (id: Id, error: RpcError) => ({ jsonrpc: '2.0', id, error })
