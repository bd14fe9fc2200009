import { ApiError, failure } from '../errors.js'
import type { TokenHoldRefusal, TokenPayer } from '../ledger/holds/hold-repository.js'
import { fromMicros } from '../money.js'
import { TOKEN_REFUSALS, type TokenRefusal } from '../tokens/holder.js'
import type { Execution, Step } from './execution.js'
import { paymentRequired, type PaymentOptions } from './payment-required.js'

/** The 402 of a token that is not (or no longer) valid; each code spelled out, as the document lists them. */
async function invalidToken (execution: Execution, options: PaymentOptions, reason: TokenRefusal): Promise<ApiError> {
  switch (reason) {
    case 'TOKEN_INVALID': return await paymentRequired(execution, options, 'TOKEN_INVALID', TOKEN_REFUSALS.TOKEN_INVALID)
    case 'TOKEN_EXPIRED': return await paymentRequired(execution, options, 'TOKEN_EXPIRED', TOKEN_REFUSALS.TOKEN_EXPIRED)
    case 'TOKEN_REVOKED': return await paymentRequired(execution, options, 'TOKEN_REVOKED', TOKEN_REFUSALS.TOKEN_REVOKED)
  }
}

/**
 * The payer of a call presenting a verification token: its signature and expiry checked in-process
 * (the ledger's row, checked with the hold, has the last word). A call presenting a wallet key has none.
 */
export async function tokenPayer (execution: Execution, options: PaymentOptions): Promise<Step<{ token: TokenPayer | undefined }>> {
  const { verificationToken, bee } = execution
  if (verificationToken === null) return { ok: true, token: undefined }
  const verified = await options.tokens.verify(verificationToken)
  if (!verified.ok) return { ok: false, error: await invalidToken(execution, options, verified.reason) }
  return { ok: true, token: { id: verified.tokenId, category: bee.record.category } }
}

/** What a call is told when the ledger refused its token: 402 for money and validity, 403 for scope. */
export async function tokenRefused (execution: Execution, options: PaymentOptions, outcome: TokenHoldRefusal): Promise<ApiError> {
  const { id, pricing } = execution.bee.record
  const price = `${pricing.costPerCall} ${pricing.currency}`
  switch (outcome.reason) {
    case 'TOKEN_NOT_FOUND':
      return await invalidToken(execution, options, 'TOKEN_INVALID')
    case 'TOKEN_REVOKED':
    case 'TOKEN_EXPIRED':
      return await invalidToken(execution, options, outcome.reason)
    case 'TOKEN_SCOPE_DENIED':
      return failure('TOKEN_SCOPE_DENIED', `The verification token (or one it was minted from) may not pay for ${id} ` +
        '(its allow-list names other Bees or categories). Use a token minted for this Bee.')
    case 'TOKEN_PER_CALL_CAP_EXCEEDED':
      return await paymentRequired(execution, options, 'TOKEN_PER_CALL_CAP_EXCEEDED',
        `${id} costs ${price}, more than the verification token (or one it was minted from) may pay for one call. Use a token with a higher perCallCap.`)
    case 'TOKEN_CAP_EXCEEDED':
      return await paymentRequired(execution, options, 'TOKEN_CAP_EXCEEDED',
        `${id} costs ${price}; the verification token (or one it was minted from) has ${fromMicros(outcome.remainingMicros)} ${pricing.currency} ` +
        'of its cap left. Ask its holder for a new token.')
  }
}
