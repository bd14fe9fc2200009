import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'
import { OPERATOR_ACCOUNT } from '../earnings/split.js'

/**
 * Double entry: earnings accounts (a publisher's, the operator's) credited by every capture, and the
 * payee of each hold, fixed when it is placed. An account's balance is the sum of its entries, never a
 * stored number: a capture only appends rows, so concurrent sales of every Bee never queue on one
 * hot row (the operator's). `earnings_accounts` rows exist only to be locked by payouts.
 *
 * Money captured before this migration was credited to no one: it opens the operator's account, so
 * the sum invariant (wallets + pending holds + earnings = deposits − payouts) holds on an upgraded ledger.
 */
export function earningsMigration (dialect: Dialect): Migration {
  const serialId = dialect === 'postgres' ? 'bigserial' : 'integer'
  const money = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up (db: Kysely<any>) {
      await db.schema.alterTable('holds').addColumn('payee', 'text', (c) => c.notNull().defaultTo(OPERATOR_ACCOUNT)).execute()
      // Holds pending across the upgrade earn for the Bee's publisher, as new ones do.
      await sql`UPDATE holds SET payee = (
          SELECT p.owner_id FROM journal j JOIN published_bees p ON p.id = j.bee_id WHERE j.id = holds.id)
        WHERE state = 'pending' AND EXISTS (SELECT 1 FROM journal j JOIN published_bees p ON p.id = j.bee_id WHERE j.id = holds.id)`.execute(db)
      await db.schema.createTable('earnings')
        .addColumn('id', serialId, (c) => dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement())
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('sale', 'fee', 'x402', 'payout', 'opening')`))
        .addColumn('amount', money, (c) => c.notNull().check(sql`amount >= 0`))
        .addColumn('fee', money, (c) => c.notNull().check(sql`fee >= 0`))
        .addColumn('bee_id', 'text')
        .addColumn('hold_id', money)
        .addColumn('request_id', 'text')
        .addColumn('reference', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      // The statement pages by id within an account; balances sum over the same index.
      await db.schema.createIndex('earnings_by_account').on('earnings').columns(['account', 'id']).execute()
      await db.schema.createTable('earnings_accounts')
        .addColumn('account', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('earnings_accounts_pk', ['account', 'currency'])
        .execute()
      await sql`INSERT INTO earnings (account, currency, kind, amount, fee, created_at)
        SELECT ${OPERATOR_ACCOUNT}, w.currency, 'opening', SUM(CASE WHEN j.kind = 'refund' THEN -j.amount ELSE j.amount END), 0, ${new Date().toISOString()}
        FROM journal j JOIN wallets w ON w.id = j.wallet_id
        WHERE j.kind IN ('capture', 'charge', 'refund')
        GROUP BY w.currency
        HAVING SUM(CASE WHEN j.kind = 'refund' THEN -j.amount ELSE j.amount END) > 0`.execute(db)
    }
  }
}
