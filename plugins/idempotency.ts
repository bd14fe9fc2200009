import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../src/core/errors.js'
import { hashSecret } from '../src/core/ledger/secrets.js'
import { WALLET_HEADER, WALLET_HEADER_NAME } from '../src/core/schemas.js'
import { beeOf } from './registry.js'

export const IDEMPOTENCY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'
const PURGE_EVERY_MS = 10 * 60 * 1000
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for execute routes: claims the Idempotency-Key, or replays, refuses or conflicts. */
    claimIdempotencyKey (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>
    /**
     * onSend for execute routes: frees a key its execution did not complete (a 200 completes it in
     * runBee, with the capture), so the retry of a failure really retries.
     */
    settleIdempotencyKey (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown>
  }
  interface FastifyRequest {
    /** The claimed key; `holdId` is the pending hold of an abandoned claim this request took over. */
    idempotency: { scope: string, key: string, holdId: number | null } | null
  }
}

/**
 * Idempotent execution. A retry with the same key and body replays the first 200 and charges
 * nothing; the same key with another body is 422; a retry while the first is running is 409.
 * Keys are scoped to the wallet. An answer is stored only for a caller with a wallet, so anonymous
 * callers cannot make the server store anything: a key on a free Bee needs a valid wallet token too.
 */
export default fp(async (fastify) => {
  const { ledger, config } = fastify
  fastify.decorateRequest('idempotency', null)

  fastify.decorate('claimIdempotencyKey', async function claimIdempotencyKey (request: FastifyRequest, reply: FastifyReply) {
    const key = request.headers[IDEMPOTENCY_HEADER]
    if (key === undefined) return undefined
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw new ApiError(400, 'INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 visible ASCII characters; a UUID is ideal.')
    }
    const bee = beeOf(request)
    if (bee === null) return undefined
    const token = request.headers[WALLET_HEADER]
    const hasToken = typeof token === 'string' && token.length > 0
    if (bee.paid) {
      // Without a token a paid call is refused by the payment hook anyway: nothing to claim.
      if (!hasToken) return undefined
    } else if (!hasToken || await ledger.wallets.getByToken(hashSecret(token)) === null) {
      throw new ApiError(400, 'IDEMPOTENCY_WALLET_REQUIRED', `${hasToken ? `No wallet has the token in ${WALLET_HEADER_NAME}. ` : ''}` +
        `An Idempotency-Key on a free Bee is honoured only with a valid wallet token in ${WALLET_HEADER_NAME} (nothing is ` +
        'charged; the stored answer is kept under that wallet): send one, or drop the key.')
    }
    const scope = `wallet:${hashSecret(token)}`
    const requestHash = createHash('sha256').update(bee.record.id).update('\n').update(JSON.stringify(request.body)).digest('hex')

    const outcome = await ledger.idempotency.claim({
      scope, key, requestHash, ttlSeconds: config.IDEMPOTENCY_TTL_HOURS * 3600, leaseSeconds: config.IDEMPOTENCY_LEASE_SECONDS
    })
    switch (outcome.state) {
      case 'claimed':
        request.idempotency = { scope, key, holdId: outcome.holdId }
        return undefined
      case 'in-flight':
        throw new ApiError(409, 'IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still running; retry in a moment to get its result.')
      case 'mismatch':
        throw new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request; use a new key for a new request.')
      case 'replay':
        return reply.code(outcome.status).header(REPLAYED_HEADER, 'true')
          .type('application/json; charset=utf-8').send(outcome.body)
    }
  })

  fastify.decorate('settleIdempotencyKey', async function settleIdempotencyKey (request: FastifyRequest, _reply: FastifyReply, payload: unknown) {
    const claim = request.idempotency
    if (claim === null) return payload
    request.idempotency = null
    // Nothing was sold (the hold, if any, was voided): the client may retry with the same key.
    await ledger.idempotency.release(claim.scope, claim.key)
    return payload
  })

  const purge = setInterval(() => {
    ledger.idempotency.purgeExpired().catch((error: unknown) => fastify.log.warn({ err: error }, 'idempotency purge failed'))
  }, PURGE_EVERY_MS)
  purge.unref()
  fastify.addHook('onClose', async () => { clearInterval(purge) })
}, { name: 'idempotency', dependencies: ['config', 'ledger', 'registry'] })
