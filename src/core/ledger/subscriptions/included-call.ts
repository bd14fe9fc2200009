import type { QueryCreator } from 'kysely'
import type { Tables } from '../tables.js'

/** The states of a subscription that still grants calls, until its period ends. */
export const LIVE = ['active', 'canceled'] as const

/** One call a subscription includes, as the ledger journals it. */
export interface IncludedCall { walletId: string, beeId: string, tokenId: string | null, requestId: string | null }

/** Counts one call against the wallet's live subscription to the Bee, if its period at `at` has one left. */
export const takeOne = (query: QueryCreator<Tables>, { walletId, beeId }: IncludedCall, at: string) => query.updateTable('subscriptions')
  .set((eb) => ({ used: eb('used', '+', 1) }))
  .where('wallet_id', '=', walletId).where('bee_id', '=', beeId).where('state', 'in', LIVE)
  .where('period_end', '>', at).whereRef('used', '<', 'included')
  .returning(['id', 'period_end'])
