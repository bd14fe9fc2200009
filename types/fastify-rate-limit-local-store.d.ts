// @fastify/rate-limit's in-memory store, which the package uses itself but declares no type for: the in-process
// fast path (src/http/rate-limit/counted-in-process.ts) counts with it directly.
declare module '@fastify/rate-limit/store/LocalStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit'

  const LocalStore: new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => FastifyRateLimitStore
  export default LocalStore
}
