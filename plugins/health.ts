import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError } from '../src/core/errors.js'
import { ErrorBody } from '../src/core/schemas.js'

const Status = Type.Object({ status: Type.String({ description: 'ok when alive, ready when serving.' }) })

/** Liveness for the orchestrator's restart decision; readiness for the load balancer's routing. */
const health: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/health', {
    schema: { tags: ['operations'], operationId: 'health', summary: 'Liveness', response: { 200: Status } },
    // Probes are never limited: a limited probe would take a healthy instance out of service.
    config: { rateLimit: false },
    logLevel: 'warn'
  }, async () => ({ status: 'ok' }))

  fastify.get('/ready', {
    schema: {
      tags: ['operations'],
      operationId: 'ready',
      summary: 'Readiness: the ledger database answers',
      response: { 200: Status, 503: { ...ErrorBody, description: 'The ledger database does not answer.' } }
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
