import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'

declare module 'fastify' {
  interface FastifyInstance {
    /** The Redis of REDIS_URL, where every instance keeps the shared rate-limit counters; null: counted in memory. */
    redis: Redis | null
  }
}

/** How long start-up waits for Redis, and how long a command may wait once running. */
const CONNECT_TIMEOUT_MS = 5000

/**
 * Connects to REDIS_URL at start: an unreachable Redis stops start-up naming it (the counters would
 * otherwise silently be per instance). Once running, a lost connection fails commands at once rather
 * than queueing them, so requests never wait on Redis; the limiters let calls through meanwhile.
 */
export default fp(async (fastify) => {
  const url = fastify.config.REDIS_URL
  if (url === undefined) {
    fastify.decorate('redis', null)
    return
  }
  // Loaded only when used: an instance without Redis does not pay for the client at start.
  const { Redis: Client } = await import('ioredis')
  const redis = new Client(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: CONNECT_TIMEOUT_MS
  })
  // The URL may hold a password: only its host is ever printed.
  const where = new URL(url).host
  let lastError: Error | null = null
  let connected = false
  redis.on('error', (error: Error) => {
    lastError = error
    // Before the first connection, the failed start says it in one line.
    if (connected) fastify.log.warn({ err: error, redis: where }, 'Redis connection error')
  })
  try {
    await redis.connect()
  } catch (error) {
    redis.disconnect()
    // connect() only says the connection closed; the error event said why.
    throw new Error(`REDIS_URL: cannot connect to Redis at ${where}: ${(lastError ?? error as Error).message}`)
  }
  connected = true
  fastify.decorate('redis', redis)
  fastify.addHook('onClose', async () => { await redis.quit() })
}, { name: 'redis', dependencies: ['config'] })
