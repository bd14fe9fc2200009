import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../src/errors.js'
import { hashSecret } from '../src/ledger/secrets.js'
import { WALLET_HEADER } from '../src/schemas.js'
import { beeOf } from './registry.js'

export const IDEMPOTENCY_HEADER = 'idempotency-key'
export const REPLAYED_HEADER = 'idempotent-replayed'
/** An in-flight key older than this belongs to a process that died; a retry may take it over. */
const LEASE_SECONDS = 60
const PURGE_EVERY_MS = 10 * 60 * 1000
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for execute routes: claims the Idempotency-Key, or replays, refuses or conflicts. */
    claimIdempotencyKey (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>
    /** onSend for execute routes: keeps a 200 for replay, frees the key after anything else. */
    settleIdempotencyKey (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown>
  }
  interface FastifyRequest {
    idempotency: { scope: string, key: string } | null
  }
}

/**
 * Idempotent execution. A retry with the same key and body replays the first 200 and charges
 * nothing; the same key with another body is 422; a retry while the first is running is 409.
 * Keys of pay-per-use Bees are scoped to the wallet; keys of free Bees (which never read the wallet
 * header) to the Bee.
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
    // Without a token a paid call is refused by the payment hook anyway: nothing to claim.
    if (bee.paid && (typeof token !== 'string' || token.length === 0)) return undefined
    const scope = bee.paid ? `wallet:${hashSecret(token as string)}` : `bee:${bee.record.id}`
    const requestHash = createHash('sha256').update(bee.record.id).update('\n').update(JSON.stringify(request.body)).digest('hex')

    const outcome = await ledger.claimIdempotencyKey({
      scope, key, requestHash, ttlSeconds: config.IDEMPOTENCY_TTL_HOURS * 3600, leaseSeconds: LEASE_SECONDS
    })
    switch (outcome.state) {
      case 'claimed':
        request.idempotency = { scope, key }
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

  fastify.decorate('settleIdempotencyKey', async function settleIdempotencyKey (request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claim = request.idempotency
    if (claim === null) return payload
    request.idempotency = null
    if (reply.statusCode === 200 && typeof payload === 'string') {
      await ledger.completeIdempotencyKey(claim.scope, claim.key, 200, payload)
    } else {
      // Nothing was sold (or it was refunded): the client may retry with the same key.
      await ledger.releaseIdempotencyKey(claim.scope, claim.key)
    }
    return payload
  })

  const purge = setInterval(() => {
    ledger.purgeExpiredIdempotencyKeys().catch((error: unknown) => fastify.log.warn({ err: error }, 'idempotency purge failed'))
  }, PURGE_EVERY_MS)
  purge.unref()
  fastify.addHook('onClose', async () => { clearInterval(purge) })
}, { name: 'idempotency', dependencies: ['config', 'ledger', 'registry'] })
