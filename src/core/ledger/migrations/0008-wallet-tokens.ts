import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Verification tokens: budgets minted from a wallet, each a row whose `spent` the ledger moves with
 * every hold (and gives back with every void), checked against `cap` on the token and on each of its
 * ancestors, whose ids its `path` lists (`/root/child/`). The service's Ed25519 signing keys, one per
 * rotation slot (unique: instances rotating together agree on one key), the private half sealed.
 */
export function walletTokensMigration (dialect: Dialect): Migration {
  const money = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up (db: Kysely<any>) {
      await db.schema.createTable('wallet_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('wallet_id', 'text', (c) => c.notNull().references('wallets.id'))
        .addColumn('parent_id', 'text', (c) => c.references('wallet_tokens.id'))
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('cap', money, (c) => c.notNull().check(sql`cap > 0`))
        .addColumn('spent', money, (c) => c.notNull().defaultTo(0))
        .addColumn('per_call_cap', money, (c) => c.check(sql`per_call_cap > 0`))
        .addColumn('bees', 'text')
        .addColumn('categories', 'text')
        .addColumn('label', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('revoked_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        // The last guard: whatever the code does, a token never spends past its cap nor below nothing.
        .addCheckConstraint('wallet_tokens_spent_within_cap', sql`spent >= 0 AND spent <= cap`)
        .execute()
      await db.schema.createIndex('wallet_tokens_by_wallet').on('wallet_tokens').columns(['wallet_id', 'path']).execute()
      await db.schema.createTable('signing_keys')
        .addColumn('kid', 'text', (c) => c.primaryKey())
        .addColumn('slot', 'text', (c) => c.notNull().unique())
        .addColumn('public_jwk', 'text', (c) => c.notNull())
        .addColumn('private_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('retire_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.alterTable('holds').addColumn('token_id', 'text', (c) => c.references('wallet_tokens.id')).execute()
    }
  }
}
