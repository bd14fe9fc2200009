import fp from 'fastify-plugin'
import type { Execution } from '../src/core/execution/execution.js'
import { Executor } from '../src/core/execution/executor.js'
import { MemoryBeeLimiter } from '../src/core/limits/bee-limiter.js'
import { RedisBeeLimiter } from '../src/core/limits/redis-bee-limiter.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The one execution pipeline every door calls (HTTP's execute routes, MCP). */
    executor: Executor
  }
  interface FastifyRequest {
    /** The execution an execute request carries from hook to hook; null elsewhere. */
    execution: Execution | null
  }
}

export default fp(async (fastify) => {
  const { config, registry, ledger, x402, redis } = fastify
  fastify.decorate('executor', new Executor({
    registry,
    ledger,
    idempotency: { ttlSeconds: config.IDEMPOTENCY_TTL_HOURS * 3600, leaseSeconds: config.IDEMPOTENCY_LEASE_SECONDS },
    payment: {
      holdTimeoutSeconds: config.HOLD_TIMEOUT_SECONDS,
      walletDocsUrl: config.WALLET_DOCS_URL ?? null,
      x402: x402?.gate ?? null,
      tokens: fastify.walletTokens.signer
    },
    // With several instances a Bee's limit holds only if they count together.
    beeLimiter: redis === null ? new MemoryBeeLimiter() : new RedisBeeLimiter(redis, `${config.REDIS_KEY_PREFIX}bee-calls:`, fastify.redisOutage),
    metrics: fastify.metrics,
    health: fastify.beeHealth.recorder,
    store: fastify.storeHealth
  }))
  fastify.decorateRequest('execution', null)
}, { name: 'executor', dependencies: ['config', 'ledger', 'registry', 'x402', 'redis', 'metrics', 'wallet-tokens', 'bee-health'] })
