import { payeeOf } from '../ledger/earnings/split.js'
import type { Ledger } from '../ledger/ledger.js'
import { fromMicros } from '../money.js'
import { WALLET_HEADER_NAME } from '../schemas.js'
import type { X402Gate } from '../x402/gate.js'
import type { Execution, Step } from './execution.js'
import { paymentRequired, x402Unavailable, type PaymentOptions } from './payment-required.js'
import { tokenPayer, tokenRefused } from './token-payment.js'
import { subscriptionCall } from './subscription.js'

/** The payment step of a call paid with x402: the facilitator verifies the payment the claim step matched to the offer. */
async function verifyX402 (execution: Execution, options: PaymentOptions, call: NonNullable<Execution['x402']>): Promise<Step> {
  const gate = options.x402 as X402Gate
  const verified = await gate.verify(call.payload, call.requirements)
  if (verified.ok) {
    call.payer = verified.payment.payer
    return { ok: true }
  }
  if (verified.kind === 'unavailable') return { ok: false, error: x402Unavailable() }
  return { ok: false, error: await paymentRequired(execution, options, 'X402_PAYMENT_INVALID', `The x402 payment was refused: ${verified.reason}.`) }
}

/**
 * The payment step of a pay-per-use Bee: places a hold on the caller's wallet (or renews the pending
 * hold of the abandoned claim this execution took over, so a retry never pays twice), or says 402.
 * A free Bee passes untouched.
 */
export async function holdPayment (ledger: Ledger, execution: Execution, options: PaymentOptions): Promise<Step> {
  const { bee, claim, tokenHash } = execution
  if (!bee.paid) return { ok: true }
  if (execution.x402 !== null) return await verifyX402(execution, options, execution.x402)
  if (bee.plan !== null) {
    const subscribed = await subscriptionCall(ledger, execution, options, bee.plan)
    // Past the quota with an overage price, the call is held and charged at it (costPerCall) as any paid call.
    if (subscribed !== 'overage') return subscribed
  }
  const { id, pricing } = bee.record
  if (tokenHash === null) {
    return {
      ok: false,
      error: await paymentRequired(execution, options, 'WALLET_TOKEN_MISSING',
        `${id} costs ${pricing.costPerCall} ${pricing.currency} a call: send a funded wallet token in ${WALLET_HEADER_NAME}.`)
    }
  }
  if (claim !== null && claim.holdId !== null) {
    const renewed = await ledger.holds.renew(claim.holdId, options.holdTimeoutSeconds)
    if (renewed !== null) {
      execution.hold = { id: claim.holdId, ...renewed }
      return { ok: true }
    }
    // Voided meanwhile (a captured hold would have completed the claim): a new hold is placed below.
  }
  const payer = await tokenPayer(execution, options)
  if (!payer.ok) return payer
  const outcome = await ledger.holds.place({
    tokenHash,
    token: payer.token,
    micros: bee.priceMicros,
    currency: pricing.currency,
    beeId: id,
    requestId: execution.requestId,
    claim: claim === null ? null : { scope: claim.scope, key: claim.key },
    expiresInSeconds: options.holdTimeoutSeconds,
    // Fixed now, on the hold: its capture credits this account even if the Bee is unpublished meanwhile.
    payee: payeeOf(bee.record.ownerId)
  })
  if (outcome.ok) {
    execution.hold = { id: outcome.holdId, walletId: outcome.walletId, micros: bee.priceMicros, balanceMicros: outcome.balanceMicros }
    return { ok: true }
  }
  switch (outcome.reason) {
    case 'WALLET_NOT_FOUND':
      return { ok: false, error: await paymentRequired(execution, options, 'WALLET_NOT_FOUND', `No wallet has the token in ${WALLET_HEADER_NAME}.`) }
    case 'WALLET_FROZEN':
      return { ok: false, error: await paymentRequired(execution, options, 'WALLET_FROZEN', 'This wallet is frozen by the operator; it cannot pay until it is unfrozen.') }
    case 'CURRENCY_MISMATCH':
      return { ok: false, error: await paymentRequired(execution, options, 'CURRENCY_MISMATCH', `${id} is priced in ${pricing.currency}; this wallet holds another currency.`) }
    case 'INSUFFICIENT_FUNDS':
      return {
        ok: false,
        error: await paymentRequired(execution, options, 'INSUFFICIENT_FUNDS',
          `${id} costs ${pricing.costPerCall} ${pricing.currency}; the wallet holds ${fromMicros(outcome.balanceMicros)} ${outcome.currency}. Top it up and retry.`)
      }
    default:
      return { ok: false, error: await tokenRefused(execution, options, outcome) }
  }
}
