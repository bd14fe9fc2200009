import { Type, type Static } from 'typebox'
import type { Subscription as StoredSubscription } from '../ledger/subscriptions/subscription-repository.js'
import { fromMicros } from '../money.js'
import { NullableString, ref, shared, StringEnum, SubscriptionPlan } from '../schemas.js'

export const Subscription = shared('Subscription', Type.Object({
  id: Type.String({ description: 'sub_…' }),
  beeId: Type.String({ description: 'The Bee.' }),
  state: StringEnum(['active', 'canceled', 'lapsed', 'ended'], { description: 'See docs/payments/subscriptions.md.' }),
  plan: ref(SubscriptionPlan),
  currency: Type.String({ description: 'ISO 4217 currency.' }),
  periodStart: Type.String({ format: 'date-time', description: 'Current period\'s start.' }),
  periodEnd: Type.String({ format: 'date-time', description: 'Current period\'s end.' }),
  used: Type.Integer({ description: 'Included calls used this period.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When it was taken.' })
}, { description: 'A wallet\'s subscription to a Bee.' }))
export type Subscription = Static<typeof Subscription>

export const toSubscription = (stored: StoredSubscription): Subscription => ({
  id: stored.id,
  beeId: stored.beeId,
  state: stored.state,
  plan: {
    periodPrice: fromMicros(stored.plan.periodPriceMicros),
    periodDays: Math.round(stored.plan.periodSeconds / 86_400),
    includedCalls: stored.plan.includedCalls,
    overagePrice: stored.plan.overageMicros === null ? null : fromMicros(stored.plan.overageMicros)
  },
  currency: stored.currency,
  periodStart: stored.periodStart,
  periodEnd: stored.periodEnd,
  used: stored.used,
  createdAt: stored.createdAt
})

export const SubscriptionCall = shared('SubscriptionCall', Type.Object({
  id: Type.Integer({ description: 'The entry\'s id, increasing.' }),
  subscriptionId: Type.String({ description: 'The subscription (sub_…) whose quota paid for the call.' }),
  beeId: Type.String({ description: 'The Bee called.' }),
  tokenId: NullableString({ description: 'The verification token (tok_…) the call presented; null: the wallet key.' }),
  requestId: NullableString({ description: 'The call\'s request id (X-Request-Id).' }),
  returnedAt: NullableString({ description: 'When (date-time) the call failed and gave its included call back; null: it counts.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When the call took its included call.' })
}, { description: 'A call a subscription\'s quota paid for (no money moves: the period price paid for it).' }))
export type SubscriptionCall = Static<typeof SubscriptionCall>
