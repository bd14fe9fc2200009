import type { Kysely, SelectQueryBuilder } from 'kysely'
import type { Tables } from '../tables.js'
import type { WriteTransaction } from '../write-transaction.js'
import type { IncludedCall } from './included-call.js'
import type { Consumed } from './subscription-repository.js'

/** What subscriptions write differently on each database. One strategy per dialect, chosen once when the store opens. */
export interface SubscriptionDialect {
  /** A transaction that writes from its start (see writeTransaction). */
  writing: WriteTransaction
  /** Takes one included call and journals it, in the write transaction `trx`; null when none is left. */
  takeIncluded: (trx: Kysely<Tables>, call: IncludedCall) => Promise<Consumed | null>
  /** takeIncluded outside any transaction of the caller's. */
  takeIncludedAlone: (call: IncludedCall) => Promise<Consumed | null>
  /** Gives an included call back to the period it was taken from, once, if that period is still the subscription's. */
  giveBack: (callId: number) => Promise<void>
  /** Rows a write transaction reads, share-locked where writers do not run one at a time (PostgreSQL). */
  forShare: <O>(query: SelectQueryBuilder<Tables, 'wallet_tokens', O>) => SelectQueryBuilder<Tables, 'wallet_tokens', O>
  /** Rows a write transaction settles, locked where writers do not run one at a time, skipping those another instance holds. */
  forUpdateSkipLocked: <O>(query: SelectQueryBuilder<Tables, 'subscriptions', O>) => SelectQueryBuilder<Tables, 'subscriptions', O>
}
