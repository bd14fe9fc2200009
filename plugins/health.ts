import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { FastifyReply } from 'fastify'
import { bodyOf, failure, RetryLaterError } from '../src/core/errors.js'
import type { StoreFaultCode } from '../src/core/ledger/store-faults.js'
import { STORE_RETRY_AFTER_SECONDS } from '../src/core/store-health.js'
import { NO_HOST, refusal } from '../src/http/refusals.js'
import { SERVED_UNDER_PRESSURE } from './load-shedding.js'

const Status = Type.Object({
  status: Type.String({ description: 'ok when alive, ready when serving.' }),
  degraded: Type.Optional(Type.Array(Type.String(), {
    description: 'What is down while the instance still serves: "redis" (calls go through without the shared rate limits). ' +
      'Absent when nothing is.'
  }))
})

/**
 * Liveness for the orchestrator's restart decision, answered as soon as the port is open; readiness for the load
 * balancer's routing, once the models that load after listening are in (plugins/warm-up.ts).
 */
/** Sent, not thrown: the outage is logged once (src/core/store-health.ts), not at every probe of the load balancer. */
async function storeDown (reply: FastifyReply, code: StoreFaultCode) {
  const refused = failure(code, code === 'STORE_FULL'
    ? 'The ledger database\'s disk is full: this instance cannot record calls. Route to another until space is freed.'
    : 'The ledger database cannot be reached: this instance cannot serve calls. Route to another until it is back.')
  return await reply.code(refused.statusCode).header('retry-after', STORE_RETRY_AFTER_SECONDS).send(bodyOf(refused))
}

const health: FastifyPluginAsyncTypebox = async (fastify) => {
  const { storeHealth } = fastify
  fastify.get('/health', {
    schema: { tags: ['operations'], operationId: 'health', summary: 'Liveness', security: [], response: { 200: Status, 400: NO_HOST } },
    // Probes are never limited or shed: a refused probe would take a live instance out of service (/ready says when to route around it).
    config: { rateLimit: false, ...SERVED_UNDER_PRESSURE },
    logLevel: 'warn'
  }, async () => ({ status: 'ok' }))

  fastify.get('/ready', {
    schema: {
      tags: ['operations'],
      operationId: 'ready',
      security: [],
      summary: 'Readiness: the models are loaded, the ledger database answers and the instance is not overloaded',
      response: {
        200: Status,
        400: NO_HOST,
        503: refusal('The Bees\' models are still loading after start-up (NOT_READY; Retry-After), or the instance is shedding ' +
          'load (OVERLOADED).', ['NOT_READY', 'OVERLOADED'])
      }
    },
    config: { rateLimit: false, ...SERVED_UNDER_PRESSURE },
    logLevel: 'warn'
  }, async (request, reply) => {
    const loading = fastify.warmUp.pending()
    // Sent, not thrown: a start is not an error to log at every probe.
    if (loading.length > 0) {
      const starting = failure('NOT_READY', `This instance is starting: loading ${loading.join(', ')}. Retry in 1 s.`)
      return await reply.code(starting.statusCode).header('retry-after', 1).send(bodyOf(starting))
    }
    if (fastify.isUnderPressure()) {
      // Not logged as a fault (a RetryLaterError): a probe of an instance under pressure would log a stack every time.
      throw new RetryLaterError('OVERLOADED', 'This instance is shedding load (event-loop delay or memory over its limit); route to another.',
        fastify.config.PRESSURE_RETRY_AFTER_SECONDS)
    }
    // Asked now (with a write while it is full): a probe that answers ends an outage at once.
    let down
    try {
      down = await storeHealth.check()
    } catch (error) {
      request.log.error({ err: error }, 'ledger ping failed')
      throw failure('NOT_READY', 'The ledger database does not answer; try another instance.')
    }
    if (down !== null) return await storeDown(reply, down)
    // Redis down is the same for every instance on it: taken out of rotation for it, they would all be.
    return fastify.redisOutage?.down === true ? { status: 'ready', degraded: ['redis'] } : { status: 'ready' }
  })
}

export default health
