import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError, errorBody } from '../src/core/errors.js'
import { NO_HOST, refusal } from '../src/http/refusals.js'
import { SERVED_UNDER_PRESSURE } from './load-shedding.js'

const Status = Type.Object({ status: Type.String({ description: 'ok when alive, ready when serving.' }) })

/**
 * Liveness for the orchestrator's restart decision, answered as soon as the port is open; readiness for the load
 * balancer's routing, once the models that load after listening are in (plugins/warm-up.ts).
 */
const health: FastifyPluginAsyncTypebox = async (fastify) => {
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
        503: refusal('The Bees\' models are still loading after start-up or the ledger database does not answer (NOT_READY; ' +
          'Retry-After), or the instance is shedding load (OVERLOADED).', ['NOT_READY', 'OVERLOADED'])
      }
    },
    config: { rateLimit: false, ...SERVED_UNDER_PRESSURE },
    logLevel: 'warn'
  }, async (request, reply) => {
    const loading = fastify.warmUp.pending()
    // Sent, not thrown: a start is not an error to log at every probe.
    if (loading.length > 0) {
      return await reply.code(503).header('retry-after', 1)
        .send(errorBody(503, 'NOT_READY', `This instance is starting: loading ${loading.join(', ')}. Retry in 1 s.`))
    }
    if (fastify.isUnderPressure()) {
      reply.header('retry-after', fastify.config.PRESSURE_RETRY_AFTER_SECONDS)
      throw new ApiError(503, 'OVERLOADED', 'This instance is shedding load (event-loop delay or memory over its limit); route to another.')
    }
    try {
      await fastify.ledger.ping()
    } catch (error) {
      request.log.error({ err: error }, 'ledger ping failed')
      throw new ApiError(503, 'NOT_READY', 'The ledger database does not answer; try another instance.')
    }
    return { status: 'ready' }
  })
}

export default health
