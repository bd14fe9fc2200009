import type { Kysely, Migration } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * The journal of included calls: one row per call a subscription's quota paid for, written in the same
 * statement (PostgreSQL) or transaction (SQLite) as the quota's count, and marked when a failed call gives
 * it back. The money journal holds only movements of money (amount > 0); these calls move none.
 */
export function subscriptionCallsMigration (dialect: Dialect): Migration {
  return {
    async up (db: Kysely<any>) {
      await db.schema.createTable('subscription_calls')
        .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement())
        .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id'))
        .addColumn('wallet_id', 'text', (c) => c.notNull())
        .addColumn('bee_id', 'text', (c) => c.notNull())
        .addColumn('token_id', 'text')
        .addColumn('request_id', 'text')
        .addColumn('period_end', 'text', (c) => c.notNull())
        .addColumn('returned_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('subscription_calls_by_subscription').on('subscription_calls').columns(['subscription_id', 'id']).execute()
    }
  }
}
