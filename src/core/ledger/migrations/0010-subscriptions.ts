import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Subscriptions: a wallet's plan on one Bee, the calls used in its current period, and its state.
 * At most one live (active or canceled-at-period-end) subscription per wallet and Bee: a partial
 * unique index, so concurrent subscribes from any instance cannot both win.
 */
export function subscriptionsMigration (dialect: Dialect): Migration {
  const money = dialect === 'postgres' ? 'bigint' : 'integer'
  const live = sql<boolean>`state in ('active', 'canceled')`
  return {
    async up (db: Kysely<any>) {
      await db.schema.createTable('subscriptions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
        .addColumn('bee_id', 'text', (c) => c.notNull())
        .addColumn('payee', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('period_price', money, (c) => c.notNull().check(sql`period_price > 0`))
        .addColumn('period_seconds', 'integer', (c) => c.notNull().check(sql`period_seconds > 0`))
        .addColumn('included', 'integer', (c) => c.notNull().check(sql`included >= 0`))
        .addColumn('overage', money, (c) => c.check(sql`overage > 0`))
        .addColumn('period_start', 'text', (c) => c.notNull())
        .addColumn('period_end', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull().check(sql`used >= 0`))
        .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('active', 'canceled', 'lapsed', 'ended')`))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('subscriptions_live').on('subscriptions').columns(['wallet_id', 'bee_id']).unique().where(live).execute()
      // A published Bee's plan (SubscriptionPlan as JSON text), when it is priced `subscription`.
      await db.schema.alterTable('published_bees').addColumn('plan', 'text').execute()
      await db.schema.createIndex('subscriptions_due').on('subscriptions').column('period_end').where(live).execute()
    }
  }
}
