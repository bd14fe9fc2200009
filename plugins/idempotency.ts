import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, onSendHookHandler, preHandlerHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { PAYMENT_RESPONSE_HEADER } from '../src/core/x402/schemas.js'
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../src/http/execution-headers.js'
import { whenStepped } from '../src/http/hook-steps.js'

const PURGE_EVERY_MS = 10 * 60 * 1000

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler of execute routes: claims the Idempotency-Key, or replays, refuses or conflicts. */
    claimIdempotencyKey: preHandlerHookHandler
    /** onSend of execute routes: frees a key its execution did not complete, so the retry of a failure really retries. */
    settleIdempotencyKey: onSendHookHandler
  }
}

/**
 * Idempotent execution over HTTP: the Idempotency-Key header, translated to the core's claim step. Callback hooks,
 * not async ones: a call without a key (the usual one) has nothing to claim or free, and passes on without a promise.
 */
export default fp(async (fastify) => {
  const { executor, ledger } = fastify

  fastify.decorate('claimIdempotencyKey', function claimIdempotencyKey (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    const execution = request.execution
    if (execution === null) {
      done()
      return
    }
    whenStepped(executor.claim(execution, request.headers[IDEMPOTENCY_HEADER], request.body), done, (claimed) => {
      if (!claimed.ok) {
        done(claimed.error)
        return
      }
      if (claimed.replay === null) {
        done()
        return
      }
      const { payment } = claimed.replay
      // The replay of a call paid with x402 carries the settlement that paid for it, as the first answer did.
      if (payment != null) reply.header(PAYMENT_RESPONSE_HEADER, fastify.x402?.encodeResponse(payment))
      // Answered here: the hooks after this one and the handler do not run.
      reply.code(claimed.replay.status).header(REPLAYED_HEADER, 'true')
        .type('application/json; charset=utf-8').send(claimed.replay.body)
    })
  })

  fastify.decorate('settleIdempotencyKey', function settleIdempotencyKey (request: FastifyRequest, _reply: FastifyReply, payload: unknown,
    done: (error: Error | null, payload?: unknown) => void) {
    const released = request.execution === null ? undefined : executor.release(request.execution)
    if (released === undefined) done(null, payload)
    else released.then(() => { done(null, payload) }, done)
  })

  const log = fastify.storeHealth.logger(fastify.log)
  const purge = setInterval(() => {
    ledger.idempotency.purgeExpired().catch((error: unknown) => log.warn({ err: error }, 'idempotency purge failed'))
  }, PURGE_EVERY_MS)
  purge.unref()
  fastify.addHook('onClose', async () => { clearInterval(purge) })
}, { name: 'idempotency', dependencies: ['ledger', 'executor', 'x402'] })
