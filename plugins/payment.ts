import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../src/core/errors.js'
import { hashSecret } from '../src/core/ledger/secrets.js'
import { fromMicros } from '../src/core/money.js'
import type { RegisteredBee } from '../src/core/registry.js'
import { beeOf } from './registry.js'
import { WALLET_HEADER, WALLET_HEADER_NAME } from '../src/core/schemas.js'

/** The hold placed before the Bee runs: the pipeline captures it with the answer, or voids it if the Bee fails. */
export interface Hold {
  id: number
  walletId: string
  micros: number
  /** The wallet's available balance once the hold was placed. */
  balanceMicros: number
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * preHandler for execute routes of pay-per-use Bees: places a hold on the caller's wallet (or
     * reuses the pending hold of the claim it took over), or answers 402.
     */
    chargeForCall (request: FastifyRequest, reply: FastifyReply): Promise<void>
  }
  interface FastifyRequest {
    hold: Hold | null
  }
}

function paymentRequired (bee: RegisteredBee, code: string, message: string): ApiError {
  return new ApiError(402, code, message, {
    transactionDetails: {
      beeId: bee.record.id,
      cost: bee.record.pricing.costPerCall,
      currency: bee.record.pricing.currency,
      requiredHeader: WALLET_HEADER_NAME
    }
  })
}

export default fp(async (fastify) => {
  const { ledger, config } = fastify
  fastify.decorateRequest('hold', null)

  fastify.decorate('chargeForCall', async function chargeForCall (request: FastifyRequest) {
    const bee = beeOf(request)
    if (bee === null || !bee.paid) return
    const { id, pricing } = bee.record
    const token = request.headers[WALLET_HEADER]
    if (typeof token !== 'string' || token.length === 0) {
      throw paymentRequired(bee, 'WALLET_TOKEN_MISSING',
        `${id} costs ${pricing.costPerCall} ${pricing.currency} a call: send a funded wallet token in ${WALLET_HEADER_NAME}.`)
    }
    const claim = request.idempotency
    if (claim !== null && claim.holdId !== null) {
      // A retry that took over an abandoned claim: that execution's hold pays for this one, never a second.
      const renewed = await ledger.holds.renew(claim.holdId, config.HOLD_TIMEOUT_SECONDS)
      if (renewed !== null) {
        request.hold = { id: claim.holdId, ...renewed }
        return
      }
      // Voided meanwhile (a captured hold would have completed the claim): a new hold is placed below.
    }
    const outcome = await ledger.holds.place({
      tokenHash: hashSecret(token),
      micros: bee.priceMicros,
      currency: pricing.currency,
      beeId: id,
      requestId: request.id,
      claim: claim === null ? null : { scope: claim.scope, key: claim.key },
      expiresInSeconds: config.HOLD_TIMEOUT_SECONDS
    })
    if (outcome.ok) {
      request.hold = { id: outcome.holdId, walletId: outcome.walletId, micros: bee.priceMicros, balanceMicros: outcome.balanceMicros }
      return
    }
    switch (outcome.reason) {
      case 'WALLET_NOT_FOUND':
        throw paymentRequired(bee, 'WALLET_NOT_FOUND', `No wallet has the token in ${WALLET_HEADER_NAME}.`)
      case 'WALLET_FROZEN':
        throw paymentRequired(bee, 'WALLET_FROZEN', 'This wallet is frozen by the operator; it cannot pay until it is unfrozen.')
      case 'CURRENCY_MISMATCH':
        throw paymentRequired(bee, 'CURRENCY_MISMATCH', `${id} is priced in ${pricing.currency}; this wallet holds another currency.`)
      case 'INSUFFICIENT_FUNDS':
        throw paymentRequired(bee, 'INSUFFICIENT_FUNDS',
          `${id} costs ${pricing.costPerCall} ${pricing.currency}; the wallet holds ${fromMicros(outcome.balanceMicros)} ${outcome.currency}. Top it up and retry.`)
    }
  })
}, { name: 'payment', dependencies: ['config', 'ledger', 'registry', 'idempotency'] })
