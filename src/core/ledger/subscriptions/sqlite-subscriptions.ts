import type { Kysely } from 'kysely'
import type { Tables } from '../tables.js'
import { now } from '../timestamps.js'
import { writeTransaction } from '../write-transaction.js'
import { type IncludedCall, takeOne } from './included-call.js'
import type { Consumed } from './subscription-repository.js'
import type { SubscriptionDialect } from './subscription-dialect.js'

/**
 * SQLite has no UPDATE in a WITH: taking or giving back an included call is two statements in one write transaction.
 * It runs one writer at a time, so a write transaction needs no row locks.
 */
export function sqliteSubscriptions (db: Kysely<Tables>): SubscriptionDialect {
  const writing = writeTransaction(db, 'sqlite')

  const takeIncluded = async (trx: Kysely<Tables>, call: IncludedCall): Promise<Consumed | null> => {
    const at = now()
    const taken = await takeOne(trx, call, at).executeTakeFirst()
    if (taken === undefined) return null
    const row = await trx.insertInto('subscription_calls').values({
      wallet_id: call.walletId,
      bee_id: call.beeId,
      token_id: call.tokenId,
      request_id: call.requestId,
      created_at: at,
      subscription_id: taken.id,
      period_end: taken.period_end
    }).returning('id').executeTakeFirstOrThrow()
    return { kind: 'included', callId: Number(row.id), subscriptionId: taken.id, periodEnd: taken.period_end }
  }

  return {
    writing,
    takeIncluded,
    takeIncludedAlone: async (call) => await writing(async (trx) => await takeIncluded(trx, call)),

    async giveBack (callId) {
      const at = now()
      await writing(async (trx) => {
        const returned = await trx.updateTable('subscription_calls').set({ returned_at: at })
          .where('id', '=', callId).where('returned_at', 'is', null).returning(['subscription_id', 'period_end']).executeTakeFirst()
        if (returned === undefined) return
        await trx.updateTable('subscriptions').set((eb) => ({ used: eb('used', '-', 1) }))
          .where('id', '=', returned.subscription_id).where('period_end', '=', returned.period_end).where('used', '>', 0).execute()
      })
    },

    forShare: (query) => query,
    forUpdateSkipLocked: (query) => query
  }
}
