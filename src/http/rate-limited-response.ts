import type { ErrorCode } from '../core/error-catalog.js'
import { RateLimitedBody } from '../core/schemas.js'
import { refusal } from './refusals.js'

const header = (description: string) => ({ type: 'string', description })

/** The headers of a 429, and of every answer under the limit (RateLimit-*). */
export const RATE_LIMIT_HEADERS = {
  'retry-after': header('Seconds to wait before retrying.'),
  'ratelimit-limit': header('The requests this caller may make per window (RATE_LIMITED only).'),
  'ratelimit-remaining': header('The requests left in the current window (RATE_LIMITED only).'),
  'ratelimit-reset': header('Seconds until the current window ends (RATE_LIMITED only).')
}

/** The codes of an execute route's 429: the caller's limit, or the Bee's own. */
export const EXECUTE_RATE_LIMIT_CODES = ['RATE_LIMITED', 'BEE_RATE_LIMITED'] as const satisfies readonly ErrorCode[]

/**
 * The 429 of every limited route, with the headers it carries (@fastify/swagger moves them out of the
 * body schema into the document's response headers). Answers under the limit carry the RateLimit-* ones too.
 */
export const rateLimitedResponse = {
  ...refusal('Too many requests from this caller (its wallet, key or address); nothing was charged.', ['RATE_LIMITED'],
    { body: RateLimitedBody, name: 'RateLimited' }),
  headers: RATE_LIMIT_HEADERS
}

/** The 429 of an execute route: the caller's limit, or the Bee's own limit on all its callers together. */
export const executeRateLimitedResponse = {
  ...refusal('Too many requests from this caller, or to this Bee from all its callers together; nothing was charged.',
    EXECUTE_RATE_LIMIT_CODES, { body: RateLimitedBody, name: 'ExecuteRateLimited' }),
  headers: RATE_LIMIT_HEADERS
}
