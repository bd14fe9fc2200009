import type { Kysely } from 'kysely'
import type { Tables } from '../tables.js'
import { now } from '../timestamps.js'
import { writeTransaction } from '../write-transaction.js'
import { type IncludedCall, takeOne } from './included-call.js'
import type { Consumed } from './subscription-repository.js'
import type { SubscriptionDialect } from './subscription-dialect.js'

/** PostgreSQL: an included call is taken, or given back, in one statement (an UPDATE in a WITH); rows are locked as they are read. */
export function postgresSubscriptions (db: Kysely<Tables>): SubscriptionDialect {
  // The count and the call's row together.
  const takeIncluded = async (trx: Kysely<Tables>, call: IncludedCall): Promise<Consumed | null> => {
    const at = now()
    const { walletId, beeId, tokenId, requestId } = call
    const row = await trx.with('taken', (query) => takeOne(query, call, at)).insertInto('subscription_calls')
      .columns(['subscription_id', 'period_end', 'wallet_id', 'bee_id', 'token_id', 'request_id', 'created_at'])
      .expression((eb) => eb.selectFrom('taken').select((eb) => [
        'taken.id', 'taken.period_end', eb.val(walletId).as('wallet_id'), eb.val(beeId).as('bee_id'), eb.val(tokenId).as('token_id'),
        eb.val(requestId).as('request_id'), eb.val(at).as('created_at')
      ]))
      .returning(['id', 'subscription_id', 'period_end']).executeTakeFirst()
    return row === undefined ? null : { kind: 'included', callId: Number(row.id), subscriptionId: row.subscription_id, periodEnd: row.period_end }
  }

  return {
    writing: writeTransaction(db, 'postgres'),
    takeIncluded,
    takeIncludedAlone: async (call) => await takeIncluded(db, call),

    async giveBack (callId) {
      const at = now()
      await db.with('returned', (db) => db.updateTable('subscription_calls').set({ returned_at: at })
        .where('id', '=', callId).where('returned_at', 'is', null).returning(['subscription_id', 'period_end']))
        .updateTable('subscriptions').from('returned').set((eb) => ({ used: eb('used', '-', 1) }))
        .whereRef('subscriptions.id', '=', 'returned.subscription_id').whereRef('subscriptions.period_end', '=', 'returned.period_end')
        .where('used', '>', 0).execute()
    },

    forShare: (query) => query.forShare(),
    forUpdateSkipLocked: (query) => query.forUpdate().skipLocked()
  }
}
