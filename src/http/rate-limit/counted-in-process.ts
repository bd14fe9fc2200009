import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { Counting } from './counting.js'

/** How many callers the in-process count keeps, least recently seen dropped first: @fastify/rate-limit's own default. */
export const LOCAL_KEYS = 5000

/** What @fastify/rate-limit's store answers for a key: the count in its window, and the milliseconds the window has left. */
interface Count { current: number, ttl: number }

/**
 * The limits, answers and headers of @fastify/rate-limit's own hook (draft-spec RateLimit-* on every answer,
 * Retry-After on a 429), counted in the library's own in-memory store, but not through the library's hook: an
 * async function that awaits the key, the limit and the store in turn, four turns of the microtask queue on every
 * request (the largest hook of every row in bench/RESULTS.md). Here a request whose caller is known without a
 * lookup (every anonymous one) is counted at once, synchronously; one with credentials waits for its lookup only.
 * Only without Redis, where the store answers synchronously. test/plugins/rate-limit-parity.test.ts holds it to the
 * library's hook, and test/plugins/rate-limit-library.test.ts to what it takes from the library.
 */
export function countedInProcess ({ keyOf, maxOf, windowMs, refusal }: Counting): onRequestHookHandler {
  const store = new LocalStore(false, false, LOCAL_KEYS)
  // The store calls back before incr returns: one callback for every request, not a closure each.
  let last: Count = { current: 0, ttl: 0 }
  const keep = (_error: Error | null, result?: Count) => { if (result !== undefined) last = result }

  function count (request: FastifyRequest, reply: FastifyReply, key: string): Error | undefined {
    const max = maxOf(request)
    if (max === 0) return undefined
    store.incr(key, keep, windowMs, max)
    const { current, ttl } = last
    const reset = Math.ceil(ttl / 1000)
    reply.header('ratelimit-limit', max).header('ratelimit-remaining', Math.max(0, max - current)).header('ratelimit-reset', reset)
    if (current <= max) return undefined
    reply.header('retry-after', reset)
    return refusal(request, max, ttl)
  }

  return (request, reply, done) => {
    const key = keyOf(request)
    if (typeof key === 'string') {
      done(count(request, reply, key))
      return
    }
    key.then((known) => { done(count(request, reply, known)) }, done)
  }
}
