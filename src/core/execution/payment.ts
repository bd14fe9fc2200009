import type { PaymentRequired } from '@x402/core/types'
import { ApiError } from '../errors.js'
import { payeeOf } from '../ledger/earnings/split.js'
import type { Ledger } from '../ledger/ledger.js'
import { fromMicros } from '../money.js'
import { WALLET_HEADER_NAME } from '../schemas.js'
import type { TokenSigner } from '../tokens/verifier.js'
import type { X402Gate } from '../x402/gate.js'
import type { Execution, Step } from './execution.js'
import { tokenPayer, tokenRefused } from './token-payment.js'
import { subscriptionCall } from './subscription.js'

/** What a door needs to say 402: where a caller learns to get a wallet (none configured: no link), and x402 when it is on. */
export interface PaymentOptions {
  holdTimeoutSeconds: number
  walletDocsUrl: string | null
  x402: X402Gate | null
  /** Verifies the verification tokens calls pay with. */
  tokens: TokenSigner
}

/** A 402 that may carry an x402 offer, which each door puts where its x402 transport expects it (HTTP: PAYMENT-REQUIRED). */
export class PaymentRequiredError extends ApiError {
  readonly offer: PaymentRequired | null

  constructor (code: string, message: string, extra: Record<string, unknown>, offer: PaymentRequired | null) {
    super(402, code, message, extra)
    this.offer = offer
  }
}

/**
 * The 402 of every door: the spec's fields, plus what an agent needs to pay without reading docs
 * first: one sentence on how to pay, where to get a wallet and, when x402 is on, that an offer is attached.
 */
export async function paymentRequired (execution: Execution, options: PaymentOptions, code: string, message: string,
  details: Record<string, unknown> = {}): Promise<ApiError> {
  const { bee } = execution
  const { costPerCall, currency, plan } = bee.record.pricing
  const docs = options.walletDocsUrl
  // A subscription Bee is paid for by the period: the wallet must subscribe first, then call.
  const needs = plan === undefined
    ? `holding at least ${costPerCall} ${currency}`
    : `subscribed to it (POST /api/bees/${bee.record.id}/subscription with that header pays ${plan.periodPrice} ${currency} a period)`
  const offer = options.x402 === null ? null : await options.x402.offer(bee, execution.resource, message)
  return new PaymentRequiredError(code, message, {
    transactionDetails: {
      beeId: bee.record.id,
      cost: costPerCall,
      currency,
      requiredHeader: WALLET_HEADER_NAME,
      howToPay: `Send the same request again with the header ${WALLET_HEADER_NAME} set to the token of a ${currency} wallet ` +
        `${needs}; this service's operator issues wallets and their tokens` +
        (docs === null ? '.' : ' (see walletDocs).') +
        (offer === null ? '' : ' Or pay for this call alone with x402 (see x402).'),
      ...(docs === null ? {} : { walletDocs: docs }),
      ...details,
      ...(offer === null
        ? {}
        : {
            x402: 'An x402 v2 offer for this call is attached: over HTTP in the PAYMENT-REQUIRED header (send the signed payment ' +
              'in PAYMENT-SIGNATURE), over MCP in this result (send it in _meta["x402/payment"]). The payment settles only if the call succeeds.'
          })
    }
  }, offer)
}

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

export const x402Unavailable = () => new ApiError(503, 'X402_FACILITATOR_UNAVAILABLE',
  'The x402 facilitator that verifies and settles payments cannot be reached; the Bee was not run and nothing was charged. Retry later, or pay with a wallet.')

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
