import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * preHandler of the execute routes of pay-per-use Bees: the core's payment step, which places a
     * hold on the caller's wallet (or reuses the pending hold of the claim it took over), or answers 402.
     */
    chargeForCall (request: FastifyRequest): Promise<void>
  }
}

export default fp(async (fastify) => {
  const { executor } = fastify
  fastify.decorate('chargeForCall', async function chargeForCall (request: FastifyRequest) {
    if (request.execution === null) return
    const held = await executor.hold(request.execution)
    if (!held.ok) throw held.error
  })
}, { name: 'payment', dependencies: ['executor', 'idempotency'] })
