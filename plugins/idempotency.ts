import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { PAYMENT_RESPONSE_HEADER } from '../src/core/x402/schemas.js'
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../src/http/execution-headers.js'

const PURGE_EVERY_MS = 10 * 60 * 1000

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler of execute routes: claims the Idempotency-Key, or replays, refuses or conflicts. */
    claimIdempotencyKey (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>
    /** onSend of execute routes: frees a key its execution did not complete, so the retry of a failure really retries. */
    settleIdempotencyKey (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown>
  }
}

/** Idempotent execution over HTTP: the Idempotency-Key header, translated to the core's claim step. */
export default fp(async (fastify) => {
  const { executor, ledger } = fastify

  fastify.decorate('claimIdempotencyKey', async function claimIdempotencyKey (request: FastifyRequest, reply: FastifyReply) {
    const execution = request.execution
    if (execution === null) return undefined
    const claimed = await executor.claim(execution, request.headers[IDEMPOTENCY_HEADER], request.body)
    if (!claimed.ok) throw claimed.error
    if (claimed.replay === null) return undefined
    const { payment } = claimed.replay
    // The replay of a call paid with x402 carries the settlement that paid for it, as the first answer did.
    if (payment != null) reply.header(PAYMENT_RESPONSE_HEADER, fastify.x402?.encodeResponse(payment))
    return reply.code(claimed.replay.status).header(REPLAYED_HEADER, 'true')
      .type('application/json; charset=utf-8').send(claimed.replay.body)
  })

  fastify.decorate('settleIdempotencyKey', async function settleIdempotencyKey (request: FastifyRequest, _reply: FastifyReply, payload: unknown) {
    if (request.execution !== null) await executor.release(request.execution)
    return payload
  })

  const purge = setInterval(() => {
    ledger.idempotency.purgeExpired().catch((error: unknown) => fastify.log.warn({ err: error }, 'idempotency purge failed'))
  }, PURGE_EVERY_MS)
  purge.unref()
  fastify.addHook('onClose', async () => { clearInterval(purge) })
}, { name: 'idempotency', dependencies: ['ledger', 'executor', 'x402'] })
