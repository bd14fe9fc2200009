import { ApiError } from '../errors.js'
import type { Ledger } from '../ledger/ledger.js'
import { fromMicros } from '../money.js'
import type { RegisteredBee } from '../registry.js'
import { WALLET_HEADER_NAME } from '../schemas.js'
import type { Execution, Step } from './execution.js'

/** What a door needs to say 402: where a caller learns to get a wallet (none configured: no link). */
export interface PaymentOptions {
  holdTimeoutSeconds: number
  walletDocsUrl: string | null
}

/**
 * The 402 of every door: the spec's fields, plus what an agent needs to pay without reading docs
 * first: one sentence on how to pay, and where to get a wallet.
 */
function paymentRequired (bee: RegisteredBee, options: PaymentOptions, code: string, message: string): ApiError {
  const { costPerCall, currency } = bee.record.pricing
  const docs = options.walletDocsUrl
  return new ApiError(402, code, message, {
    transactionDetails: {
      beeId: bee.record.id,
      cost: costPerCall,
      currency,
      requiredHeader: WALLET_HEADER_NAME,
      howToPay: `Send the same request again with the header ${WALLET_HEADER_NAME} set to the token of a ${currency} wallet ` +
        `holding at least ${costPerCall} ${currency}; this service's operator issues wallets and their tokens` +
        (docs === null ? '.' : ' (see walletDocs).'),
      ...(docs === null ? {} : { walletDocs: docs })
    }
  })
}

/**
 * The payment step of a pay-per-use Bee: places a hold on the caller's wallet (or renews the pending
 * hold of the abandoned claim this execution took over, so a retry never pays twice), or says 402.
 * A free Bee passes untouched.
 */
export async function holdPayment (ledger: Ledger, execution: Execution, options: PaymentOptions): Promise<Step> {
  const { bee, claim, tokenHash } = execution
  if (!bee.paid) return { ok: true }
  const { id, pricing } = bee.record
  if (tokenHash === null) {
    return {
      ok: false,
      error: paymentRequired(bee, options, 'WALLET_TOKEN_MISSING',
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
  const outcome = await ledger.holds.place({
    tokenHash,
    micros: bee.priceMicros,
    currency: pricing.currency,
    beeId: id,
    requestId: execution.requestId,
    claim: claim === null ? null : { scope: claim.scope, key: claim.key },
    expiresInSeconds: options.holdTimeoutSeconds
  })
  if (outcome.ok) {
    execution.hold = { id: outcome.holdId, walletId: outcome.walletId, micros: bee.priceMicros, balanceMicros: outcome.balanceMicros }
    return { ok: true }
  }
  switch (outcome.reason) {
    case 'WALLET_NOT_FOUND':
      return { ok: false, error: paymentRequired(bee, options, 'WALLET_NOT_FOUND', `No wallet has the token in ${WALLET_HEADER_NAME}.`) }
    case 'WALLET_FROZEN':
      return { ok: false, error: paymentRequired(bee, options, 'WALLET_FROZEN', 'This wallet is frozen by the operator; it cannot pay until it is unfrozen.') }
    case 'CURRENCY_MISMATCH':
      return { ok: false, error: paymentRequired(bee, options, 'CURRENCY_MISMATCH', `${id} is priced in ${pricing.currency}; this wallet holds another currency.`) }
    case 'INSUFFICIENT_FUNDS':
      return {
        ok: false,
        error: paymentRequired(bee, options, 'INSUFFICIENT_FUNDS',
          `${id} costs ${pricing.costPerCall} ${pricing.currency}; the wallet holds ${fromMicros(outcome.balanceMicros)} ${outcome.currency}. Top it up and retry.`)
      }
  }
}
