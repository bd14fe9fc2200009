import { Type, type Static } from 'typebox'
import type { Subscription as StoredSubscription } from '../ledger/subscriptions/subscription-repository.js'
import { fromMicros } from '../money.js'
import { ref, shared, StringEnum, SubscriptionPlan } from '../schemas.js'

export const Subscription = shared('Subscription', Type.Object({
  id: Type.String({ description: 'sub_…' }),
  beeId: Type.String({ description: 'The Bee.' }),
  state: StringEnum(['active', 'canceled', 'lapsed', 'ended'], { description: 'See the README, Subscriptions.' }),
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
