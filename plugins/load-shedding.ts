import underPressure from '@fastify/under-pressure'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { RetryLaterError } from '../src/core/errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** @fastify/under-pressure's per-route handler: a route whose handler returns nothing is served under pressure too. */
    pressureHandler?: (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) => Promise<void> | void
  }
}

/**
 * How long after start-up an event-loop reading is taken to be of the start itself: loading the Bees blocks
 * the loop for a second or more, and the first sample (one a second) then measures that, not load.
 */
const START_UP_READINGS_MS = 2000

/** What a route sets to be served under pressure: probes and the metrics scrape. */
export const SERVED_UNDER_PRESSURE = { pressureHandler: () => undefined }

/**
 * Sheds load before the process falls over (@fastify/under-pressure): while the event loop lags, or the
 * heap or RSS is over its limit, new requests get 503 OVERLOADED with Retry-After in the standard error
 * shape, at the cost of one comparison each (the measures are sampled on a timer). /ready reports the
 * pressure (fastify.isUnderPressure), so a load balancer routes around the instance meanwhile.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const retryAfter = config.PRESSURE_RETRY_AFTER_SECONDS
  let readyAt = Infinity
  fastify.addHook('onReady', async () => { readyAt = performance.now() })
  await fastify.register(underPressure, {
    maxEventLoopDelay: config.PRESSURE_MAX_EVENT_LOOP_DELAY_MS,
    maxHeapUsedBytes: config.PRESSURE_MAX_HEAP_USED_BYTES,
    maxRssBytes: config.PRESSURE_MAX_RSS_BYTES,
    retryAfter,
    // A rejection goes to the error handler, which answers in the standard shape.
    pressureHandler: async (request, reply, type) => {
      if (type === 'eventLoopDelay' && performance.now() - readyAt < START_UP_READINGS_MS) return
      // A refusal to retry later, which the error handler answers with Retry-After and does not log as a fault: an
      // instance shedding load is working as it should, and a line with a stack per shed request would flood the log.
      throw new RetryLaterError('OVERLOADED', `This instance is overloaded (${type}); nothing was run or charged. Retry in ${retryAfter} s, ` +
        'or on another instance.', retryAfter)
    }
  })
}, { name: 'load-shedding', dependencies: ['config'] })
