import type { RateLimitPluginOptions } from '@fastify/rate-limit'
import type { FastifyRequest } from 'fastify'

/**
 * What counting a request needs, whichever way it is counted (in process, or by @fastify/rate-limit's own hook in
 * Redis): the two must answer alike, and are given the same.
 */
export interface Counting {
  /** Whom the request counts as: at once when known without a lookup, else the promise of it. */
  keyOf: (request: FastifyRequest) => string | Promise<string>
  /** The limit of the request's caller, read after its key; 0: not limited. */
  maxOf: (request: FastifyRequest) => number
  windowMs: number
  /** The 429 past the limit, with the milliseconds left in the window. */
  refusal: (request: FastifyRequest, max: number, ttlMs: number) => Error
  /** Whether some caller's limit is 0. */
  someUnlimited: boolean
}

/** @fastify/rate-limit's options for the same counting: the draft spec's RateLimit-* headers, Retry-After on a 429. */
export function libraryOptions (counting: Counting): RateLimitPluginOptions {
  const { keyOf, maxOf, windowMs, refusal, someUnlimited } = counting
  return {
    global: false,
    enableDraftSpec: true,
    timeWindow: windowMs,
    keyGenerator: keyOf,
    max: maxOf,
    // Only when a class is unlimited: otherwise the library skips the call (and its await) on every request.
    allowList: someUnlimited ? (request) => maxOf(request) === 0 : undefined,
    errorResponseBuilder: (request, context) => refusal(request, context.max, context.ttl)
  }
}
