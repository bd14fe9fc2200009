import fp from 'fastify-plugin'
import type { Redis } from 'ioredis'
import { Outage } from '../src/core/outage.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The Redis of REDIS_URL, where every instance keeps the shared rate-limit counters; null: counted in memory. */
    redis: Redis | null
    /** Redis's outages, logged once each (src/core/outage.ts); null without REDIS_URL. */
    redisOutage: Outage | null
  }
}

/** How long start-up waits for Redis, and how long a command may wait once running. */
const CONNECT_TIMEOUT_MS = 5000
/** The first wait before connecting again after the connection was lost, doubled at each failure up to the longest. */
const FIRST_RECONNECT_MS = 100
const LONGEST_RECONNECT_MS = 1000

/**
 * Connects to REDIS_URL at start: an unreachable Redis stops start-up naming it (the counters would
 * otherwise silently be per instance). Once running, a lost connection fails commands at once rather
 * than queueing them, so requests never wait on Redis; the limiters let calls through meanwhile. The client
 * connects again by itself, 100 ms after the loss, doubling to at most a second between attempts, so Redis back is
 * used within a second; the outage is logged when it starts and ends (and reminded every 30 s), not per attempt or call.
 */
export default fp(async (fastify) => {
  const url = fastify.config.REDIS_URL
  if (url === undefined) {
    fastify.decorate('redis', null)
    fastify.decorate('redisOutage', null)
    return
  }
  // Loaded only when used: an instance without Redis does not pay for the client at start.
  const { Redis: Client } = await import('ioredis')
  const redis = new Client(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: CONNECT_TIMEOUT_MS,
    commandTimeout: CONNECT_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(FIRST_RECONNECT_MS * 2 ** (attempt - 1), LONGEST_RECONNECT_MS)
  })
  // The URL may hold a password: only its host is ever printed.
  const where = new URL(url).host
  const outage = new Outage({
    dependency: 'Redis',
    meanwhile: `calls are served without the shared rate limits (per caller and per Bee) until ${where} is back`,
    log: fastify.log
  })
  let lastError: Error | null = null
  let serving = false
  redis.on('error', (error: Error) => {
    lastError = error
    // Before the first connection, the failed start says it in one line.
    if (serving) outage.failed(error, 'connectionErrors')
  })
  redis.on('close', () => {
    if (serving) outage.failed(new Error(`the connection to ${where} closed`), 'connectionErrors')
  })
  redis.on('ready', () => { outage.recovered() })
  try {
    await redis.connect()
  } catch (error) {
    redis.disconnect()
    // connect() only says the connection closed; the error event said why.
    throw new Error(`REDIS_URL: cannot connect to Redis at ${where}: ${(lastError ?? error as Error).message}`)
  }
  serving = true
  fastify.decorate('redis', redis)
  fastify.decorate('redisOutage', outage)
  fastify.addHook('onClose', async () => {
    serving = false
    outage.close()
    await redis.quit()
  })
}, { name: 'redis', dependencies: ['config'] })
