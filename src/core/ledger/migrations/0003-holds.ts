import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'
import { moneyType, serialIdType } from './column-types.js'

/**
 * Two-phase charges: journal kinds hold, capture and void (charge and refund stay readable), a
 * capture or void row names its hold (once: unique), and each hold's state and expiry. SQLite
 * cannot alter a CHECK, so there the journal is rebuilt under the same name, ids kept.
 */
export function holdsMigration (dialect: Dialect): Migration {
  const serialId = serialIdType(dialect)
  const money = moneyType(dialect)
  return {
    async up (db: Kysely<any>) {
      const kinds = sql`kind in ('deposit', 'hold', 'capture', 'void', 'charge', 'refund')`
      if (dialect === 'postgres') {
        await sql`ALTER TABLE journal DROP CONSTRAINT journal_kind_check, ADD CONSTRAINT journal_kind_check CHECK (${kinds})`.execute(db)
        await db.schema.alterTable('journal').addColumn('hold_id', money, (c) => c.references('journal.id').unique()).execute()
      } else {
        await db.transaction().execute(async (trx) => {
          await trx.schema.alterTable('journal').renameTo('journal_before_holds').execute()
          await trx.schema.createTable('journal')
            .addColumn('id', serialId, (c) => c.primaryKey().autoIncrement())
            .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
            .addColumn('kind', 'text', (c) => c.notNull().check(kinds))
            .addColumn('amount', money, (c) => c.notNull().check(sql`amount > 0`))
            .addColumn('bee_id', 'text')
            .addColumn('request_id', 'text')
            .addColumn('idempotency_key', 'text')
            .addColumn('refund_of', money, (c) => c.references('journal.id').unique())
            .addColumn('hold_id', money, (c) => c.references('journal.id').unique())
            .addColumn('created_at', 'text', (c) => c.notNull())
            .execute()
          await sql`INSERT INTO journal (id, wallet_id, kind, amount, bee_id, request_id, idempotency_key, refund_of, created_at)
            SELECT id, wallet_id, kind, amount, bee_id, request_id, idempotency_key, refund_of, created_at FROM journal_before_holds ORDER BY id`.execute(trx)
          await trx.schema.dropTable('journal_before_holds').execute()
          await trx.schema.createIndex('journal_by_wallet').on('journal').columns(['wallet_id', 'id']).execute()
          await trx.schema.createIndex('journal_by_request').on('journal').column('request_id').execute()
        })
      }
      await db.schema.createTable('holds')
        .addColumn('id', money, (c) => c.primaryKey().references('journal.id'))
        .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
        .addColumn('amount', money, (c) => c.notNull().check(sql`amount > 0`))
        .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'captured', 'voided')`))
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute()
      // Partial: the sweeper and the wallet's `held` only ever look at pending holds.
      await db.schema.createIndex('holds_pending_by_expiry').on('holds').column('expires_at').where(sql.ref('state'), '=', 'pending').execute()
      await db.schema.createIndex('holds_pending_by_wallet').on('holds').column('wallet_id').where(sql.ref('state'), '=', 'pending').execute()
      await db.schema.alterTable('idempotency_keys').addColumn('hold_id', money).execute()
    }
  }
}
