import { STATUS_CODES } from 'node:http'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../src/errors.js'

interface Issue { field: string, reason: string }

type ValidationIssue = NonNullable<FastifyError['validation']>[number]

function toIssue (issue: ValidationIssue): Issue {
  const params = issue.params as Record<string, unknown>
  if (issue.keyword === 'required') {
    return { field: `${issue.instancePath}/${String(params.missingProperty)}`, reason: 'is required' }
  }
  return { field: issue.instancePath, reason: issue.message ?? 'is invalid' }
}

/** Fastify's own errors, by code, as the client-facing code and a sentence they can act on. */
const fastifyErrors: Record<string, { code: string, message: (error: FastifyError) => string }> = {
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
    message: () => 'The request body is larger than this service accepts (BODY_LIMIT_BYTES).'
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'INVALID_CONTENT_LENGTH',
    message: () => 'The Content-Length header does not match the body.'
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'INVALID_JSON',
    message: (error) => `The body is not valid JSON: ${error.message}`
  }
}

function send (reply: FastifyReply, status: number, code: string, message: string, extra?: Record<string, unknown>) {
  return reply.code(status).send({ error: STATUS_CODES[status] ?? 'Error', code, message, ...extra })
}

function handleError (this: unknown, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof ApiError) {
    if (error.statusCode >= 500) request.log.error({ err: error }, 'request failed')
    return send(reply, error.statusCode, error.code, error.message, error.extra)
  }
  if (error.validation !== undefined) {
    if (error.validationContext === 'body' && request.body === undefined) {
      return send(reply, 400, 'BODY_REQUIRED', 'This endpoint needs a JSON object body.')
    }
    const details = error.validation.map(toIssue)
    const summary = details.map((issue) => `${issue.field || error.validationContext} ${issue.reason}`).join('; ')
    return send(reply, 400, 'VALIDATION_FAILED', `The ${error.validationContext ?? 'request'} is invalid: ${summary}.`, { details })
  }
  const known = error.code === undefined ? undefined : fastifyErrors[error.code]
  if (known !== undefined) return send(reply, error.statusCode ?? 400, known.code, known.message(error))
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return send(reply, 400, 'INVALID_JSON', `The body is not valid JSON: ${error.message}`)
  }
  const status = error.statusCode ?? 500
  if (status < 500) return send(reply, status, 'BAD_REQUEST', error.message)
  request.log.error({ err: error }, 'request failed')
  return send(reply, 500, 'INTERNAL_ERROR', `Something went wrong on our side. Quote request id ${request.id} when reporting it.`)
}

/** One error shape everywhere: `{error, code, message}`, with `details` for validation errors. */
export default fp(async (fastify) => {
  fastify.setErrorHandler(handleError)
  fastify.setNotFoundHandler((request, reply) =>
    send(reply, 404, 'ROUTE_NOT_FOUND', `No route ${request.method} ${request.url}. The API is described at /openapi/openapi.json.`))
}, { name: 'errors' })
