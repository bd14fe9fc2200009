import type { EarningsBalance, EarningsEntry } from '../../earnings/schemas.js'
import type { PageOutcome, PageRequest } from '../paging.js'

export interface PayoutRequest {
  /** A publisher id, or OPERATOR_ACCOUNT. */
  account: string
  micros: number
  currency: string
  reference: string | null
  requestId: string | null
}

export type PayoutOutcome =
  | { ok: true, payout: EarningsEntry, balance: EarningsBalance }
  | { ok: false, reason: 'ACCOUNT_NOT_FOUND' }
  | { ok: false, reason: 'PAYOUT_EXCEEDS_BALANCE', balance: EarningsBalance }

/** A sale paid outside any wallet (x402, settled on chain to the operator), credited to the Bee's payee. */
export interface ExternalSale {
  payee: string
  micros: number
  currency: string
  beeId: string
  requestId: string
  /** The x402 payment key: one payment, one credit. */
  reference: string
}

/**
 * Earnings accounts (each publisher's and the operator's): credited by every capture (see the debit's
 * capture), debited by payouts. Balances are sums of entries: nothing here updates a balance in place.
 */
export interface EarningsRepository {
  /** Whether the account exists: the operator's always does, a publisher's once the publisher does. */
  exists (account: string): Promise<boolean>
  /** The account's figures, one per currency it ever earned in. */
  balances (account: string): Promise<EarningsBalance[]>
  /** The account's entries, newest first, a page at a time. */
  entries (account: string, page: PageRequest): Promise<PageOutcome<EarningsEntry>>
  /**
   * Pays `micros` out of the account (a payout entry), only if its balance in that currency covers it.
   * Concurrent payouts of one account, from any instance, take turns on a row lock, so together they
   * can never take more than the balance (captures only add to it meanwhile).
   */
  payout (request: PayoutRequest): Promise<PayoutOutcome>
}
