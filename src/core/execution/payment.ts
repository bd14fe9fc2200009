import { ApiError } from '../errors.js'
import type { Ledger } from '../ledger/ledger.js'
import { fromMicros } from '../money.js'
import type { RegisteredBee } from '../registry.js'
import { WALLET_HEADER_NAME } from '../schemas.js'
import type { Execution, Step } from './execution.js'

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

/**
 * The payment step of a pay-per-use Bee: places a hold on the caller's wallet (or renews the pending
 * hold of the abandoned claim this execution took over, so a retry never pays twice), or says 402.
 * A free Bee passes untouched.
 */
export async function holdPayment (ledger: Ledger, execution: Execution, holdTimeoutSeconds: number): Promise<Step> {
  const { bee, claim, tokenHash } = execution
  if (!bee.paid) return { ok: true }
  const { id, pricing } = bee.record
  if (tokenHash === null) {
    return {
      ok: false,
      error: paymentRequired(bee, 'WALLET_TOKEN_MISSING',
        `${id} costs ${pricing.costPerCall} ${pricing.currency} a call: send a funded wallet token in ${WALLET_HEADER_NAME}.`)
    }
  }
  if (claim !== null && claim.holdId !== null) {
    const renewed = await ledger.holds.renew(claim.holdId, holdTimeoutSeconds)
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
    expiresInSeconds: holdTimeoutSeconds
  })
  if (outcome.ok) {
    execution.hold = { id: outcome.holdId, walletId: outcome.walletId, micros: bee.priceMicros, balanceMicros: outcome.balanceMicros }
    return { ok: true }
  }
  switch (outcome.reason) {
    case 'WALLET_NOT_FOUND':
      return { ok: false, error: paymentRequired(bee, 'WALLET_NOT_FOUND', `No wallet has the token in ${WALLET_HEADER_NAME}.`) }
    case 'WALLET_FROZEN':
      return { ok: false, error: paymentRequired(bee, 'WALLET_FROZEN', 'This wallet is frozen by the operator; it cannot pay until it is unfrozen.') }
    case 'CURRENCY_MISMATCH':
      return { ok: false, error: paymentRequired(bee, 'CURRENCY_MISMATCH', `${id} is priced in ${pricing.currency}; this wallet holds another currency.`) }
    case 'INSUFFICIENT_FUNDS':
      return {
        ok: false,
        error: paymentRequired(bee, 'INSUFFICIENT_FUNDS',
          `${id} costs ${pricing.costPerCall} ${pricing.currency}; the wallet holds ${fromMicros(outcome.balanceMicros)} ${outcome.currency}. Top it up and retry.`)
      }
  }
}
