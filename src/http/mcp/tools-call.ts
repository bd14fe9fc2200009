import type { IncomingHttpHeaders } from 'node:http'
import { ProtocolErrorCode, type CallToolRequestParams, type CallToolResult, type CreateTaskResult, type JSONRPCResponse, type RequestId } from '@modelcontextprotocol/server'
import { Type } from 'typebox'
import { bodyAjv } from '../../core/validation.js'
import { answeredInJson } from './direct.js'

/** A JSON-RPC id as the SDK's schema takes it: a string, or an integer Zod's int() accepts (a safe one). */
const Id = Type.Union([Type.String(), Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })])

/**
 * The tools/call requests the fast path answers: a subset of what the SDK's checks pass (its JSON-RPC
 * request schema, its 2025 tools/call schema), holding nothing its server would act on before our handler.
 * So no other member (the JSON-RPC schema is strict), no `_meta` key of the protocol's own
 * (io.modelcontextprotocol/…: a 2026-07-28 envelope claim, a related task), no retry fields (inputResponses,
 * requestState) and no task. Whatever falls outside goes the SDK's way, which answers or refuses it itself;
 * so does a request whose params fail, and the error the client reads is the SDK's own text.
 */
export const ToolsCall = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  id: Id,
  method: Type.Literal('tools/call'),
  params: Type.Object({
    name: Type.String(),
    arguments: Type.Optional(Type.Object({}, { additionalProperties: true })),
    _meta: Type.Optional(Type.Object({ progressToken: Type.Optional(Id) }, {
      additionalProperties: true,
      propertyNames: { type: 'string', not: { pattern: '^io\\.modelcontextprotocol/' } }
    }))
  }, { additionalProperties: false })
}, { additionalProperties: false })

/**
 * A task-augmented tools/call (2025-11-25) of the same shape: `task` asks for a task, with the ttl the client would
 * like. The SDK's 2.x server has no task runtime (its tools/call result check refuses a task), so the endpoint answers
 * these itself (tasks.ts); one outside the shape goes the SDK's way, which runs it as a plain call.
 */
export const TaskToolsCall = Type.Object({
  ...ToolsCall.properties,
  params: Type.Object({
    ...ToolsCall.properties.params.properties,
    task: Type.Object({ ttl: Type.Optional(Type.Number({ minimum: 0 })) }, { additionalProperties: false })
  }, { additionalProperties: false })
}, { additionalProperties: false })

type Call = { id: RequestId, params: CallToolRequestParams }

/** Compiled once: the checks every MCP request meets first. No defaults in them, so they never change the message. */
const isToolsCall = bodyAjv.compile<Call>(ToolsCall)
const isTaskToolsCall = bodyAjv.compile<Call>(TaskToolsCall)

/**
 * The id and params of a 2025-era tools/call that the endpoint answers without the SDK's server: one it
 * would route to that server and answer 200 in JSON (`answeredInJson`), of the shape above. Undefined
 * for every other request.
 */
export function toolsCall (headers: IncomingHttpHeaders, message: unknown): Call | undefined {
  return isToolsCall(message) && answeredInJson(headers) ? message : undefined
}

/** The id and params of a task-augmented tools/call of the shape above, answered as toolsCall's are; undefined for any other request. */
export function taskToolsCall (headers: IncomingHttpHeaders, message: unknown): Call | undefined {
  return isTaskToolsCall(message) && answeredInJson(headers) ? message : undefined
}

/**
 * The JSON-RPC response the SDK's server sends for a tools/call handler's outcome, member for member
 * (src-*.mjs of @modelcontextprotocol/server: Protocol._onrequest and Server._wrapHandler). A result comes
 * as the SDK's result schema parses it: its own members first (_meta, content, structuredContent, isError),
 * then any other in the handler's order. A throw becomes an error with the thrown code when it is an
 * integer (a ProtocolError's: callTool throws -32602 and -32603, which the 2025 codec writes unchanged),
 * else -32603, with its message and its data.
 */
export async function answerToolsCall (id: RequestId, call: () => Promise<CallToolResult | CreateTaskResult>): Promise<JSONRPCResponse> {
  try {
    // A CreateTaskResult has none of a tool result's members: its task comes with the rest.
    const { _meta, content, structuredContent, isError, ...rest } = await call() as CallToolResult
    return { result: { _meta, content, structuredContent, isError, ...rest }, jsonrpc: '2.0', id }
  } catch (thrown) {
    const { code, message, data } = thrown as { code?: unknown, message?: string, data?: unknown }
    return {
      jsonrpc: '2.0',
      id,
      error: {
        code: typeof code === 'number' && Number.isSafeInteger(code) ? code : ProtocolErrorCode.InternalError,
        message: message ?? 'Internal error',
        ...(data !== undefined && { data })
      }
    }
  }
}
