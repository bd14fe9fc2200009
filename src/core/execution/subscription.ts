import { ApiError } from '../errors.js'
import type { Ledger } from '../ledger/ledger.js'
import type { PlanMicros } from '../ledger/subscriptions/subscription-repository.js'
import { WALLET_HEADER_NAME } from '../schemas.js'
import type { Execution, Step } from './execution.js'
import { paymentRequired, type PaymentOptions } from './payment.js'

/**
 * The payment step of a subscription Bee: a call within the wallet's quota takes one included call
 * (atomically, exact under concurrency) and is not charged; past it, 'overage' (the caller holds the
 * overage price) or 402 SUBSCRIPTION_QUOTA_EXHAUSTED; without a subscription, 402 SUBSCRIPTION_REQUIRED
 * naming the plan.
 */
export async function subscriptionCall (ledger: Ledger, execution: Execution, options: PaymentOptions, plan: PlanMicros): Promise<Step | 'overage'> {
  const { bee, tokenHash } = execution
  const { id, pricing } = bee.record
  const required = (message: string) => paymentRequired(execution, options, 'SUBSCRIPTION_REQUIRED', message, { plan: pricing.plan })
  if (tokenHash === null) {
    return { ok: false, error: await required(`${id} is used by subscription: subscribe with POST /api/bees/${id}/subscription, then call it with your wallet token in ${WALLET_HEADER_NAME}.`) }
  }
  if (execution.verificationToken !== null) {
    // A token's revocation and allow-list are checked with a hold; an included call places none, so a token could
    // outlive its revocation here. Until the quota step checks the token's row too, only the wallet key spends the plan.
    return {
      ok: false,
      error: new ApiError(403, 'TOKEN_SCOPE_DENIED', `${id} is used by subscription, and a subscription is spent with the wallet's own key, ` +
        'not a verification token. Call it with the wallet key.')
    }
  }
  const walletId = await ledger.wallets.idByToken(tokenHash)
  if (walletId === null) {
    return { ok: false, error: await paymentRequired(execution, options, 'WALLET_NOT_FOUND', `No wallet has the token in ${WALLET_HEADER_NAME}.`) }
  }
  const consumed = await ledger.subscriptions.consume(walletId, id)
  switch (consumed.kind) {
    case 'included':
      execution.included = { subscriptionId: consumed.subscriptionId, periodEnd: consumed.periodEnd }
      return { ok: true }
    case 'exhausted':
      if (consumed.overageMicros !== null && plan.overageMicros !== null) return 'overage'
      return {
        ok: false,
        error: await paymentRequired(execution, options, 'SUBSCRIPTION_QUOTA_EXHAUSTED',
          `Your subscription's ${plan.includedCalls} calls of this period are used; the next period starts at ${consumed.resetsAt}.`,
          { plan: pricing.plan, resetsAt: consumed.resetsAt })
      }
    case 'none':
      return { ok: false, error: await required(`${id} needs a subscription: subscribe with POST /api/bees/${id}/subscription (it pays the first period at once).`) }
  }
}
