import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'
import { moneyType, serialIdType } from './column-types.js'

/** Wallets, their journal of deposits and charges, and the idempotency keys of paid calls. */
export function ledgerMigration (dialect: Dialect): Migration {
  const serialId = serialIdType(dialect)
  const money = moneyType(dialect)
  return {
    async up (db: Kysely<any>) {
      await db.schema.createTable('wallets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('balance', money, (c) => c.notNull().check(sql`balance >= 0`))
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('label', 'text')
        .addColumn('frozen', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createTable('journal')
        .addColumn('id', serialId, (c) => dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement())
        .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('deposit', 'charge', 'refund')`))
        .addColumn('amount', money, (c) => c.notNull().check(sql`amount > 0`))
        .addColumn('bee_id', 'text')
        .addColumn('request_id', 'text')
        .addColumn('idempotency_key', 'text')
        .addColumn('refund_of', money, (c) => c.references('journal.id').unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('journal_by_wallet').on('journal').columns(['wallet_id', 'id']).execute()
      await db.schema.createIndex('journal_by_request').on('journal').column('request_id').execute()
      await db.schema.createTable('idempotency_keys')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('locked_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
        .execute()
      await db.schema.createIndex('idempotency_by_expiry').on('idempotency_keys').column('expires_at').execute()
    }
  }
}
