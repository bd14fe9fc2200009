import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError } from '../src/core/errors.js'
import { NO_HOST, refusal } from '../src/http/refusals.js'

const Status = Type.Object({ status: Type.String({ description: 'ok when alive, ready when serving.' }) })

/** Liveness for the orchestrator's restart decision; readiness for the load balancer's routing. */
const health: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/health', {
    schema: { tags: ['operations'], operationId: 'health', summary: 'Liveness', security: [], response: { 200: Status, 400: NO_HOST } },
    // Probes are never limited: a limited probe would take a healthy instance out of service.
    config: { rateLimit: false },
    logLevel: 'warn'
  }, async () => ({ status: 'ok' }))

  fastify.get('/ready', {
    schema: {
      tags: ['operations'],
      operationId: 'ready',
      security: [],
      summary: 'Readiness: the ledger database answers',
      response: { 200: Status, 400: NO_HOST, 503: refusal('The ledger database does not answer.', ['NOT_READY']) }
    },
    config: { rateLimit: false },
    logLevel: 'warn'
  }, async (request) => {
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
