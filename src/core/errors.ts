import { MAX_BALANCE } from './schemas.js'

/**
 * An error the client can act on. The error handler turns it into `{error, code, message, ...extra}`:
 * `error` is the HTTP status text, `code` a stable UPPER_SNAKE identifier listed in the README.
 */
export class ApiError extends Error {
  readonly statusCode: number
  readonly code: string
  readonly extra: Record<string, unknown> | undefined

  constructor (statusCode: number, code: string, message: string, extra?: Record<string, unknown>) {
    super(message)
    this.name = 'ApiError'
    this.statusCode = statusCode
    this.code = code
    this.extra = extra
  }
}

export function invalidCursor (): ApiError {
  return new ApiError(400, 'INVALID_CURSOR', 'cursor must be the nextCursor of a previous page.')
}

export function beeNotFound (id: string): ApiError {
  return new ApiError(404, 'BEE_NOT_FOUND', `No Bee has the id "${id}". GET /api/bees lists the Bees you can call.`)
}

export function balanceLimitExceeded (): ApiError {
  return new ApiError(400, 'BALANCE_LIMIT_EXCEEDED',
    `A wallet holds at most ${MAX_BALANCE.toLocaleString('en-US')} of its currency: this would take its balance above that.`)
}
