/** A subscription plan in micro-units, as the ledger charges it. */
export interface PlanMicros {
  periodPriceMicros: number
  periodSeconds: number
  includedCalls: number
  /** Price of a call past the included ones; null: such calls are refused until the period resets. */
  overageMicros: number | null
}

export type SubscriptionState = 'active' | 'canceled' | 'lapsed' | 'ended'

export interface Subscription {
  id: string
  walletId: string
  beeId: string
  currency: string
  plan: PlanMicros
  periodStart: string
  periodEnd: string
  used: number
  /** active; canceled: runs to periodEnd, then ends; lapsed: a renewal could not be paid; ended. */
  state: SubscriptionState
  createdAt: string
}

export interface SubscribeRequest {
  tokenHash: string
  beeId: string
  /** The earnings account the period price credits (see saleRows). */
  payee: string
  currency: string
  plan: PlanMicros
  requestId: string | null
}

export type SubscribeOutcome =
  | { ok: true, subscription: Subscription, balanceMicros: number }
  | { ok: false, reason: 'WALLET_NOT_FOUND' | 'CURRENCY_MISMATCH' | 'WALLET_FROZEN' | 'ALREADY_SUBSCRIBED' }
  | { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: number }

/** What a call to a subscription Bee may do: an included call (consumed), or why not. */
export type Consumed =
  | { kind: 'included', subscriptionId: string, periodEnd: string }
  | { kind: 'exhausted', resetsAt: string, overageMicros: number | null }
  | { kind: 'none' }

export interface Renewals { renewed: number, lapsed: number, ended: number }

/**
 * Subscriptions and their quotas. Money moves as for a call: the period price leaves the wallet and is
 * credited to the Bee's payee, less the platform fee, with a hold captured in the same transaction
 * (so the wallet's journal, its audit and the ledger's sum invariant see it like any sale).
 */
export interface SubscriptionRepository {
  /** Pays the first period at once and starts the subscription, atomically, if the wallet can pay and has none live on the Bee. */
  subscribe (request: SubscribeRequest): Promise<SubscribeOutcome>
  /** The wallet's live subscription on the Bee (active, or canceled and running to its period's end). */
  live (walletId: string, beeId: string): Promise<Subscription | null>
  /** Cancels at the period's end: no renewal. Null when there was no active subscription. */
  cancel (walletId: string, beeId: string): Promise<Subscription | null>
  /**
   * Takes one included call of the current period if one is left: a conditional UPDATE (used < included),
   * so N concurrent calls on K remaining calls, from any instance, get exactly K.
   */
  consume (walletId: string, beeId: string): Promise<Consumed>
  /** Gives back an included call whose Bee failed, if its period is still the current one. */
  giveBack (subscriptionId: string, periodEnd: string): Promise<void>
  /**
   * Settles up to `limit` subscriptions whose period has ended: renewed (the next period paid, as
   * subscribe pays) when the wallet can pay, else lapsed; canceled ones end. Safe on many instances.
   */
  renewDue (limit: number): Promise<Renewals>
}
