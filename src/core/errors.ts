import { STATUS_CODES } from 'node:http'
import type { ErrorObject } from 'ajv'
import { statusOf, type CodeWithStatus, type ErrorCode, type OneStatusCode, type StatusOf } from './error-catalog.js'
import { MAX_BALANCE } from './schemas.js'

/**
 * An error the client can act on, whatever door it came through. HTTP turns it into
 * `{error, code, message, ...extra}` with its status; MCP and the other doors carry the same body.
 * `code` is one of the catalog's (error-catalog.ts), and the status one the catalog gives it: make one
 * with `failure` (or `failureAs`), which find the status there.
 */
export class ApiError<out C extends ErrorCode = ErrorCode> extends Error {
  readonly statusCode: StatusOf<C>
  readonly code: C
  readonly extra: Record<string, unknown> | undefined

  constructor (statusCode: StatusOf<C>, code: C, message: string, extra?: Record<string, unknown>) {
    super(message)
    this.name = 'ApiError'
    this.statusCode = statusCode
    this.code = code
    this.extra = extra
  }
}

/** A refusal to retry later: HTTP says when in Retry-After (seconds). */
export class RetryLaterError extends ApiError {
  readonly retryAfterSeconds: number

  constructor (code: OneStatusCode, message: string, retryAfterSeconds: number, extra?: Record<string, unknown>) {
    super(statusOf(code), code, message, extra)
    this.name = 'RetryLaterError'
    this.retryAfterSeconds = retryAfterSeconds
  }
}

/** A 429: the body says when to retry (`retryAfter`, seconds), and HTTP says it in Retry-After too. */
export class RateLimitedError extends RetryLaterError {
  constructor (code: CodeWithStatus<429>, message: string, retryAfterSeconds: number) {
    super(code, message, retryAfterSeconds, { retryAfter: retryAfterSeconds })
    this.name = 'RateLimitedError'
  }
}

/** The error the catalog names `code`, with the one status it gives it. */
export function failure<C extends OneStatusCode> (code: C, message: string, extra?: Record<string, unknown>): ApiError<C> {
  return new ApiError(statusOf(code), code, message, extra)
}

/** The error of a code the catalog gives several statuses, with the one this situation answers. */
export function failureAs<C extends ErrorCode> (code: C, status: StatusOf<C>, message: string, extra?: Record<string, unknown>): ApiError<C> {
  return new ApiError(status, code, message, extra)
}

/** The standard error body: `error` is the status text, `code` the stable identifier docs/errors.md lists. */
function errorBody (status: number, code: ErrorCode, message: string, extra?: Record<string, unknown>) {
  return { error: STATUS_CODES[status] ?? 'Error', code, message, ...extra }
}

export const bodyOf = (error: ApiError) => errorBody(error.statusCode, error.code, error.message, error.extra)

export interface Issue { field: string, reason: string }

/** What every validator reports: Ajv's errors, and Fastify's, which are Ajv's. */
export type ValidationError = Pick<ErrorObject, 'keyword' | 'instancePath' | 'params' | 'message'>

/** One Ajv error as the field it names and why it was refused. */
export function toIssue (issue: ValidationError): Issue {
  const params = issue.params as Record<string, unknown>
  if (issue.keyword === 'required') {
    return { field: `${issue.instancePath}/${String(params.missingProperty)}`, reason: 'is required' }
  }
  return { field: issue.instancePath, reason: issue.message ?? 'is invalid' }
}

/** Most refused fields a 400 names: a small body may hold hundreds of wrong values, and the answer stays small. */
export const MOST_DETAILS = 20

/** 400 VALIDATION_FAILED naming each refused field of `part` (body, path, query, request), the first MOST_DETAILS of them. */
export function validationFailed (issues: readonly ValidationError[], part: string, fallback: string): ApiError {
  const details = issues.slice(0, MOST_DETAILS).map(toIssue)
  const more = issues.length - details.length
  const summary = details.map((issue) => `${issue.field || fallback} ${issue.reason}`).join('; ') + (more > 0 ? `; and ${more} more` : '')
  return failure('VALIDATION_FAILED', `The ${part} is invalid: ${summary}.`, { details })
}

export function invalidCursor (): ApiError {
  return failure('INVALID_CURSOR', 'cursor must be the nextCursor of a previous page.')
}

export function beeNotFound (id: string): ApiError {
  return failure('BEE_NOT_FOUND', `No Bee has the id "${id}". GET /api/bees lists the Bees you can call.`)
}

export function balanceLimitExceeded (): ApiError {
  return failure('BALANCE_LIMIT_EXCEEDED',
    `A wallet holds at most ${MAX_BALANCE.toLocaleString('en-US')} of its currency: this would take its balance above that.`)
}
