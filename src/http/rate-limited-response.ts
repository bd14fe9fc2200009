import { RateLimitedBody } from '../core/schemas.js'

const header = (description: string) => ({ type: 'string', description })

/**
 * The 429 of every limited route, with the headers it carries (@fastify/swagger moves them out of the
 * body schema into the document's response headers). Answers under the limit carry the RateLimit-* ones too.
 */
export const rateLimitedResponse = {
  ...RateLimitedBody,
  headers: {
    'retry-after': header('Seconds to wait before retrying.'),
    'ratelimit-limit': header('The requests this caller may make per window (RATE_LIMITED only).'),
    'ratelimit-remaining': header('The requests left in the current window (RATE_LIMITED only).'),
    'ratelimit-reset': header('Seconds until the current window ends (RATE_LIMITED only).')
  }
}
