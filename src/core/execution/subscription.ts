import type { Ledger } from '../ledger/ledger.js'
import type { PlanMicros } from '../ledger/subscriptions/subscription-repository.js'
import { WALLET_HEADER_NAME } from '../schemas.js'
import type { Execution, Step } from './execution.js'
import { paymentRequired, type PaymentOptions } from './payment-required.js'
import { tokenPayer, tokenRefused } from './token-payment.js'

/**
 * The payment step of a subscription Bee: a call within the wallet's quota takes one included call
 * (atomically, exact under concurrency, journaled) and is not charged; past it, 'overage' (the caller
 * holds the overage price) or 402 SUBSCRIPTION_QUOTA_EXHAUSTED; without a subscription, 402
 * SUBSCRIPTION_REQUIRED naming the plan. A verification token spends its wallet's subscription once the
 * ledger finds it and its ancestors unrevoked, unexpired and allowed the Bee; an overage call is then
 * held against its caps like any paid call.
 */
export async function subscriptionCall (ledger: Ledger, execution: Execution, options: PaymentOptions, plan: PlanMicros): Promise<Step | 'overage'> {
  const { bee, tokenHash } = execution
  const { id, pricing } = bee.record
  const required = (message: string) => paymentRequired(execution, options, 'SUBSCRIPTION_REQUIRED', message, { plan: pricing.plan })
  if (tokenHash === null) {
    return { ok: false, error: await required(`${id} is used by subscription: subscribe with POST /api/bees/${id}/subscription, then call it with your wallet token in ${WALLET_HEADER_NAME}.`) }
  }
  const payer = await tokenPayer(execution, options)
  if (!payer.ok) return payer
  let walletId: string | null = null
  if (payer.token === undefined) {
    walletId = await ledger.wallets.idByToken(tokenHash)
    if (walletId === null) {
      return { ok: false, error: await paymentRequired(execution, options, 'WALLET_NOT_FOUND', `No wallet has the token in ${WALLET_HEADER_NAME}.`) }
    }
  }
  const consumed = await ledger.subscriptions.consume({
    beeId: id,
    requestId: execution.requestId,
    payer: walletId === null ? { token: payer.token as NonNullable<typeof payer.token> } : { walletId }
  })
  switch (consumed.kind) {
    case 'included':
      execution.included = { callId: consumed.callId, subscriptionId: consumed.subscriptionId }
      return { ok: true }
    case 'refused':
      return { ok: false, error: await tokenRefused(execution, options, consumed.refusal) }
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
