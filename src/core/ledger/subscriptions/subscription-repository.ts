import type { PageOutcome, PageRequest } from '../paging.js'
import type { TokenHoldRefusal, TokenPayer } from '../holds/hold-repository.js'

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

/** A call to a subscription Bee that asks for one of its wallet's included calls. */
export interface ConsumeRequest {
  beeId: string
  requestId: string | null
  /**
   * Who pays: the wallet of a wallet key, or a verification token, whose own wallet's subscription is
   * used once the token and each of its ancestors are found unrevoked, unexpired and allowed this Bee.
   */
  payer: { walletId: string } | { token: TokenPayer }
}

/** What a call to a subscription Bee may do: an included call (consumed, journaled as `callId`), or why not. */
export type Consumed =
  | { kind: 'included', callId: number, subscriptionId: string, periodEnd: string }
  | { kind: 'exhausted', resetsAt: string, overageMicros: number | null }
  | { kind: 'none' }
  | { kind: 'refused', refusal: TokenHoldRefusal }

/** One call a subscription's quota paid for. */
export interface SubscriptionCall {
  id: number
  subscriptionId: string
  beeId: string
  /** The verification token the call presented; null: the wallet key. */
  tokenId: string | null
  requestId: string | null
  /** When a failed call gave it back; null while it counts. */
  returnedAt: string | null
  createdAt: string
}

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
   * Takes one included call of the current period if one is left, and journals it: a conditional UPDATE
   * (used < included) and the call's row together, so N concurrent calls on K remaining calls, from any
   * instance, get exactly K, and each has its row.
   */
  consume (request: ConsumeRequest): Promise<Consumed>
  /** Gives back an included call whose Bee failed (its row is marked returned), counting it off its period if that is still the current one. */
  giveBack (callId: number): Promise<void>
  /** The included calls of a wallet on a Bee, every period, newest first, a page at a time. */
  calls (walletId: string, beeId: string, page: PageRequest): Promise<PageOutcome<SubscriptionCall>>
  /**
   * Settles up to `limit` subscriptions whose period has ended: renewed (the next period paid, as
   * subscribe pays) when the wallet can pay, else lapsed; canceled ones end. Safe on many instances.
   */
  renewDue (limit: number): Promise<Renewals>
}
