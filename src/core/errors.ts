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
