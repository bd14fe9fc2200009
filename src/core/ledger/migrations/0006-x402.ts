import { type Kysely, type Migration } from 'kysely'
import type { Dialect } from '../dialect.js'
import { serialIdType } from './column-types.js'

/** x402: the settlements of payments made per call, outside any wallet. */
export function x402Migration (dialect: Dialect): Migration {
  const serialId = serialIdType(dialect)
  return {
    async up (db: Kysely<any>) {
      await db.schema.createTable('x402_settlements')
        .addColumn('id', serialId, (c) => c.primaryKey())
        .addColumn('payment_key', 'text', (c) => c.notNull().unique())
        .addColumn('bee_id', 'text', (c) => c.notNull())
        .addColumn('request_id', 'text', (c) => c.notNull())
        .addColumn('network', 'text', (c) => c.notNull())
        .addColumn('asset', 'text', (c) => c.notNull())
        .addColumn('amount', 'text', (c) => c.notNull())
        .addColumn('pay_to', 'text', (c) => c.notNull())
        .addColumn('payer', 'text', (c) => c.notNull())
        .addColumn('transaction', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
    }
  }
}
