import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AllowedMethods } from '../src/http/allowed-methods.js'
import { FORM_BODY_LIMIT } from '../src/http/oauth/form-body.js'
import type { OneStatusCode } from '../src/core/error-catalog.js'
import { ApiError, bodyOf, failure, RetryLaterError, validationFailed } from '../src/core/errors.js'
import { byteSize } from '../src/core/byte-size.js'
import { PaymentRequiredError } from '../src/core/execution/payment-required.js'
import { PAYMENT_REQUIRED_HEADER } from '../src/core/x402/schemas.js'
import { loggedUrl } from './access-log.js'
import { baselineHeaders } from './security-headers.js'

/** Fastify's own errors, by code, as the client-facing code and a sentence they can act on. */
const fastifyErrors: Record<string, { code: OneStatusCode, message: (request: FastifyRequest) => string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: () => 'Send the body as JSON with Content-Type: application/json.'
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: 'BODY_REQUIRED',
    message: () => 'This endpoint needs a JSON object body.'
  },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    message: (request) => isForm(request)
      ? `The form is larger than the ${byteSize(FORM_BODY_LIMIT)} this page accepts.`
      : `The request body is larger than the ${byteSize(request.routeOptions.bodyLimit)} this service accepts (BODY_LIMIT_BYTES).`
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'INVALID_CONTENT_LENGTH',
    message: () => 'The Content-Length header does not match the body.'
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'INVALID_JSON',
    message: () => 'The body is not valid JSON.'
  },
  // The next two come before routing, through frameworkErrors below.
  FST_ERR_BAD_URL: {
    code: 'BAD_URL',
    message: () => 'The URL is not valid: a path segment has broken percent-encoding (such as %zz).'
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'PARAM_TOO_LONG',
    message: () => 'A path parameter is longer than this service accepts; no identifier here is that long.'
  }
}

/** The consent form has a body limit of its own (its parser's); every other body has its route's. */
const isForm = (request: FastifyRequest) => request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded') === true

/** How a message names the part of the request that failed validation. */
const partNames: Record<string, string> = { body: 'body', params: 'path', querystring: 'query', headers: 'request' }

function send (reply: FastifyReply, error: ApiError) {
  return reply.code(error.statusCode).send(bodyOf(error))
}

function handleError (this: unknown, thrown: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // The ledger database unreachable or full is a 503 to retry, counted toward its outage (logged there, once).
  const error = thrown instanceof ApiError ? thrown : request.server.storeHealth?.refusal(thrown) ?? thrown
  if (error instanceof ApiError) {
    // A refusal to retry later (the store away, a rate limit) is the service working as it should: not a fault to log.
    if (error.statusCode >= 500 && !(error instanceof RetryLaterError)) request.log.error({ err: error }, 'request failed')
    // x402's HTTP transport: the offer travels in PAYMENT-REQUIRED, next to the spec's 402 body.
    if (error instanceof PaymentRequiredError && error.offer !== null && request.server.x402 !== null) {
      reply.header(PAYMENT_REQUIRED_HEADER, request.server.x402.encodeRequired(error.offer))
    }
    if (error instanceof RetryLaterError) reply.header('retry-after', String(error.retryAfterSeconds))
    return send(reply, error)
  }
  if (error.validation !== undefined) {
    if (error.validationContext === 'body' && request.body === undefined) {
      return send(reply, failure('BODY_REQUIRED', 'This endpoint needs a JSON object body.'))
    }
    return send(reply, validationFailed(error.validation, partNames[error.validationContext ?? ''] ?? 'request', error.validationContext ?? ''))
  }
  const known = error.code === undefined ? undefined : fastifyErrors[error.code]
  if (known !== undefined) return send(reply, failure(known.code, known.message(request)))
  // A parser's own message may quote the body: the client is told only what it sent wrong.
  if (error instanceof SyntaxError && error.statusCode === 400) return send(reply, failure('INVALID_JSON', 'The body is not valid JSON.'))
  // Any other client error a dependency raises (the static files' 403 for a path that climbs out, say) is one malformed request.
  if ((error.statusCode ?? 500) < 500) return send(reply, failure('BAD_REQUEST', error.message))
  request.log.error({ err: error }, 'request failed')
  return send(reply, failure('INTERNAL_ERROR', `Something went wrong on our side. Quote request id ${request.id} when reporting it.`))
}

/**
 * Server option frameworkErrors: what Fastify refuses before routing (a URL that does not decode, an
 * over-long path parameter) gets the same shape, the request id and the baseline security headers. No
 * hook runs for these requests, so the headers and the request's one log line are written here.
 */
export function frameworkErrors (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.once('finish', () => {
    reply.log.info({ method: request.method, url: loggedUrl(request.url), statusCode: reply.statusCode }, 'request completed')
  })
  reply.header('x-request-id', request.id).headers(baselineHeaders)
  handleError(error, request, reply)
}

/** Errors of the HTTP parser, by Node's code: there is no request yet, only the socket to answer on. */
const clientErrors: Record<string, ApiError> = {
  ERR_HTTP_REQUEST_TIMEOUT: failure('REQUEST_TIMEOUT', 'The request was not received in time.'),
  HPE_HEADER_OVERFLOW: failure('HEADERS_TOO_LARGE', 'The request headers are larger than this service accepts.')
}
const malformedHttp = failure('BAD_REQUEST',
  'The request is not valid HTTP/1.1; check the request line, the headers and that Content-Length matches the body.')

/**
 * Server option clientErrorHandler: Node's HTTP parser failed (bytes after a short Content-Length,
 * a malformed request line, oversized headers). Answers in the standard shape, then closes the
 * connection, as Fastify's default does.
 */
export function clientErrorHandler (this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection is already gone: nothing to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const refusal = clientErrors[error.code ?? ''] ?? malformedHttp
  const status = refusal.statusCode
  this.log.debug({ err: error }, 'client error')
  if (socket.writable) {
    const body = JSON.stringify(bodyOf(refusal))
    const security = Object.entries(baselineHeaders).map(([name, value]) => `${name}: ${value}\r\n`).join('')
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n${security}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`)
  }
  socket.destroy(error)
}

/**
 * One error shape everywhere: `{error, code, message}`, with `details` for validation errors. A request
 * no route takes is a 405 with `Allow` when its path is known under other methods, else a 404.
 */
export default fp(async (fastify) => {
  const allowed = new AllowedMethods()
  fastify.addHook('onRoute', (route) => { allowed.add(route.url, route.method) })
  fastify.setErrorHandler(handleError)
  fastify.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0] ?? ''
    const methods = allowed.of(path)
    if (methods.length > 0) {
      reply.header('allow', methods.join(', '))
      return send(reply, failure('METHOD_NOT_ALLOWED', `${path} does not answer ${request.method}; it answers ${methods.join(', ')}.`))
    }
    return send(reply, failure('ROUTE_NOT_FOUND', `No route ${request.method} ${request.url}. The API is described at /openapi/openapi.json, to read in a browser at /docs; agents start at /llms.txt.`))
  })
}, { name: 'errors' })
