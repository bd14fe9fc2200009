import type { PaymentPayload, SettleResponse } from '@x402/core/types'
import { failure } from '../errors.js'
import type { Execution, Step } from '../execution/execution.js'
import { paymentRequired, x402Unavailable, type PaymentOptions } from '../execution/payment-required.js'
import { requestHashOf, type IdempotencyLimits, type Replay } from '../idempotency/claims.js'
import type { Ledger } from '../ledger/ledger.js'
import type { NewSettlement } from '../ledger/settlements/settlement-repository.js'

/** Payments are claimed in the idempotency store under their own scope: one payment, one call, one answer. */
const SCOPE = 'x402'

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The presented value, if it has the shape of an x402 v2 payment payload (the facilitator checks the rest). */
function asPayload (value: unknown): PaymentPayload | null {
  if (!isObject(value) || value.x402Version !== 2 || !isObject(value.accepted) || !isObject(value.payload)) return null
  return value as unknown as PaymentPayload
}

/**
 * A payment's identity: who pays, and the nonce of the authorization they signed (EIP-3009, or
 * Permit2 for tokens without it). The chain spends each nonce once, so this names one payment however
 * its bytes are re-encoded; null when the payload carries neither authorization.
 */
function paymentKeyOf (payload: PaymentPayload): string | null {
  const inner = payload.payload
  const authorization = inner.authorization ?? inner.permit2Authorization
  if (!isObject(authorization) || typeof authorization.from !== 'string' || typeof authorization.nonce !== 'string') return null
  const { network, asset } = payload.accepted
  return [network, asset, authorization.from, authorization.nonce].join(':').toLowerCase()
}

/** The settlement as x402's SettleResponse, the same on the first answer and on every replay of it. */
export const paymentResponseOf = (settlement: NewSettlement): SettleResponse => ({
  success: true,
  transaction: settlement.transaction,
  network: settlement.network as SettleResponse['network'],
  payer: settlement.payer,
  amount: settlement.amount
})

/**
 * The claim step of a call paid with x402 (in place of the Idempotency-Key's): the payment must answer
 * this Bee's offer, and is claimed under its identity. The same signed payment for the same call
 * replays the answer it paid for, with its settlement, and is never settled twice; used for another
 * call, it is refused; while its first call runs, it is a conflict.
 */
export async function claimPayment (ledger: Ledger, limits: IdempotencyLimits, options: PaymentOptions, execution: Execution,
  input: unknown): Promise<Step<{ replay: Replay | null }>> {
  const gate = options.x402
  const { bee } = execution
  const invalid = async (message: string) => ({ ok: false as const, error: await paymentRequired(execution, options, 'X402_PAYMENT_INVALID', message) })
  const payload = asPayload(execution.presentedPayment)
  if (gate === null || payload === null) return await invalid('The x402 payment is not an x402 v2 payment payload.')
  const requirements = await gate.match(bee, payload)
  if ('ok' in requirements) {
    if (requirements.kind === 'unavailable') return { ok: false, error: x402Unavailable() }
    return await invalid(`The x402 payment was refused: ${requirements.reason}.`)
  }
  const paymentKey = paymentKeyOf(payload)
  if (paymentKey === null) return await invalid('The x402 payment carries no signed authorization with a payer and a nonce.')
  const outcome = await ledger.idempotency.claim({
    scope: SCOPE,
    key: paymentKey,
    // Only the very same signed payment for the same call replays: a payload re-signed or altered is another request.
    requestHash: requestHashOf(bee.record.id, input, JSON.stringify(payload.payload)),
    ttlSeconds: limits.ttlSeconds,
    leaseSeconds: limits.leaseSeconds
  })
  switch (outcome.state) {
    case 'claimed':
      execution.claim = { scope: SCOPE, key: paymentKey, holdId: null }
      execution.x402 = { payload, requirements, paymentKey, payer: null }
      return { ok: true, replay: null }
    case 'in-flight':
      return { ok: false, error: failure('X402_PAYMENT_IN_FLIGHT', 'A call paid with this x402 payment is still running; retry in a moment to get its result.') }
    case 'mismatch':
      return {
        ok: false,
        error: await paymentRequired(execution, options, 'X402_PAYMENT_USED', 'This x402 payment already paid for another call; sign a new payment for this one.')
      }
    case 'replay': {
      const settlement = await ledger.settlements.byPaymentKey(paymentKey)
      return { ok: true, replay: { status: outcome.status, body: outcome.body, payment: settlement === null ? null : paymentResponseOf(settlement) } }
    }
  }
}
