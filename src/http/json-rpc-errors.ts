import type { FastifyReply, FastifyRequest } from 'fastify'
import { ref, type ErrorBody, type SharedSchema } from '../core/schemas.js'
import { RATE_LIMIT_HEADERS } from './rate-limited-response.js'

/** The JSON-RPC 2.0 codes of a request refused before its protocol read it. */
const JsonRpcRefusalCode = { parseError: -32700, invalidRequest: -32600, internalError: -32603 } as const

const isErrorBody = (payload: unknown): payload is ErrorBody => typeof payload === 'object' && payload !== null && 'code' in payload

/**
 * A preSerialization hook for a JSON-RPC door. What the app refuses before the handler runs (not JSON, too
 * large, too deep, not UTF-8, …) comes from its error handler in the standard body; a JSON-RPC client reads
 * JSON-RPC, so the body is wrapped in an error response, laid out in `data` as the door's protocol wants
 * (`detailsOf`). The HTTP status stays the one the app gives such a request everywhere else.
 */
export function jsonRpcRefusals (detailsOf: (body: ErrorBody) => unknown) {
  return async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (reply.statusCode < 400 || !isErrorBody(payload)) return payload
    const code = reply.statusCode >= 500
      ? JsonRpcRefusalCode.internalError
      : payload.code === 'INVALID_JSON' ? JsonRpcRefusalCode.parseError : JsonRpcRefusalCode.invalidRequest
    return { jsonrpc: '2.0', id: null, error: { code, message: payload.message, data: detailsOf(payload) } }
  }
}

/**
 * The response schemas of the refusals that hook wraps (400 aside, which each door words itself), in the door's
 * error response. Every status the app may refuse a door's request with must be here: a status left to a plugin's
 * default schema (the rate limit's 429 is the standard body) would serialize the wrapped body against that schema
 * and fail, and Fastify would answer 500 instead.
 */
export function refusalResponses (errorResponse: SharedSchema) {
  return {
    403: ref(errorResponse, { description: 'A browser Origin not in CORS_ORIGINS, or a Host this instance does not answer to (ORIGIN_FORBIDDEN, HOST_FORBIDDEN).' }),
    413: ref(errorResponse, { description: 'The body is larger than BODY_LIMIT_BYTES.' }),
    415: ref(errorResponse, { description: 'Content-Type is not application/json (or not UTF-8), or the Content-Encoding is not gzip, deflate or br.' }),
    429: {
      ...ref(errorResponse, { description: 'Too many requests from this caller (RATE_LIMITED, with retryAfter in the data); nothing was charged.' }),
      headers: RATE_LIMIT_HEADERS
    },
    500: ref(errorResponse, { description: 'Something went wrong on our side (-32603).' }),
    503: {
      ...ref(errorResponse, { description: 'This instance is overloaded (OVERLOADED, -32603): retry after Retry-After seconds, or on another instance.' }),
      headers: { 'retry-after': RATE_LIMIT_HEADERS['retry-after'] }
    }
  }
}
