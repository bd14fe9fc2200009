import type { Dialect } from './dialect.js'
import { earningsMigration } from './earnings/migration.js'
import { healthMigration } from './health/migration.js'
import { healthVersionMigration } from './health/version-migration.js'
import { subscriptionsMigration } from './subscriptions/migration.js'
import { subscriptionCallsMigration } from './subscriptions/calls-migration.js'
import { type Kysely, type Migration, type MigrationProvider, sql } from 'kysely'
import { walletTokensMigration } from './migrations/0008-wallet-tokens.js'
import { catalogChangesMigration, catalogSearchMigration } from './catalog/migration.js'
import { oauthMigration } from './oauth/migration.js'
import { catalogListingMigration } from './catalog/listing-migration.js'
import { catalogRankingMigration } from './catalog/ranking-migration.js'
import { catalogOwnerCountMigration } from './catalog/owner-count-migration.js'
import { catalogSecretKeyMigration } from './catalog/secret-key-migration.js'

/**
 * One migration set for both backends, applied in order at start by Kysely's Migrator (which takes a
 * lock, so instances starting together on PostgreSQL migrate once). Never edit a shipped migration.
 */
export function migrationsFor (dialect: Dialect): MigrationProvider {
  // The one place the dialects differ in DDL: how an auto-numbered 64-bit key is declared.
  const serialId = dialect === 'postgres' ? 'bigserial' : 'integer'
  const money = dialect === 'postgres' ? 'bigint' : 'integer'

  const ledger: Migration = {
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

  const publishing: Migration = {
    async up (db: Kysely<any>) {
      await db.schema.createTable('publishers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createTable('published_bees')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull().references('publishers.id'))
        .addColumn('owner_email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('colony', 'text', (c) => c.notNull())
        .addColumn('endpoint', 'text', (c) => c.notNull())
        .addColumn('input_schema', 'text', (c) => c.notNull())
        .addColumn('output_schema', 'text', (c) => c.notNull())
        .addColumn('primary_services', 'text', (c) => c.notNull())
        .addColumn('pricing_type', 'text', (c) => c.notNull())
        .addColumn('cost_micros', money, (c) => c.notNull().check(sql`cost_micros >= 0`))
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'inactive', 'deprecated')`))
        .addColumn('status_message', 'text')
        .addColumn('sunset_at', 'text')
        .addColumn('signing_secret', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('published_bees_by_owner').on('published_bees').column('owner_id').execute()
      await db.schema.createTable('builtin_bee_states')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_message', 'text')
        .addColumn('sunset_at', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createTable('catalog_version')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('version', 'integer', (c) => c.notNull())
        .execute()
      await db.insertInto('catalog_version').values({ id: 1, version: 0 }).execute()
    }
  }

  /**
   * Two-phase charges: journal kinds hold, capture and void (charge and refund stay readable), a
   * capture or void row names its hold (once: unique), and each hold's state and expiry. SQLite
   * cannot alter a CHECK, so there the journal is rebuilt under the same name, ids kept.
   */
  const holds: Migration = {
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

  /** Signing-secret rotation: the replaced secret keeps signing, next to the new one, until it expires. */
  const credentials: Migration = {
    async up (db: Kysely<any>) {
      await db.schema.alterTable('published_bees').addColumn('previous_signing_secret', 'text').execute()
      await db.schema.alterTable('published_bees').addColumn('previous_secret_expires_at', 'text').execute()
    }
  }

  /** Website preparation records; each row is also its job, which workers claim under a lease. */
  const preparations: Migration = {
    async up (db: Kysely<any>) {
      await db.schema.createTable('preparations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull())
        .addColumn('owner_email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('website_url', 'text', (c) => c.notNull())
        .addColumn('business_name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('primary_services', 'text', (c) => c.notNull())
        .addColumn('target_audience', 'text', (c) => c.notNull())
        .addColumn('notes', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'completed', 'failed', 'canceled')`))
        .addColumn('output_files', 'text')
        .addColumn('progress', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('run_after', 'text', (c) => c.notNull())
        .addColumn('run_token', 'text')
        .addColumn('lease_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('preparations_by_owner').on('preparations').columns(['owner_id', 'id']).execute()
      await db.schema.createIndex('preparations_due').on('preparations').columns(['status', 'run_after']).execute()
    }
  }

  /** x402: the settlements of payments made per call, outside any wallet. */
  const x402: Migration = {
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

  /** A published Bee's own rate limit, set by its publisher to spare its upstream. */
  const rateLimits: Migration = {
    async up (db: Kysely<any>) {
      await db.schema.alterTable('published_bees').addColumn('calls_per_minute', 'integer', (c) => c.check(sql`calls_per_minute > 0`)).execute()
    }
  }

  return {
    getMigrations: async () => ({
      '0001_ledger': ledger,
      '0002_publishing': publishing,
      '0003_holds': holds,
      '0004_credentials': credentials,
      '0005_preparations': preparations,
      '0006_x402': x402,
      '0007_rate_limits': rateLimits,
      '0008_wallet_tokens': walletTokensMigration(dialect),
      '0009_earnings': earningsMigration(dialect),
      '0010_subscriptions': subscriptionsMigration(dialect),
      '0011_subscription_calls': subscriptionCallsMigration(dialect),
      '0012_bee_health': healthMigration,
      '0013_catalog_changes': catalogChangesMigration(dialect),
      '0014_catalog_search': catalogSearchMigration(dialect),
      '0015_oauth': oauthMigration,
      '0016_catalog_listing': catalogListingMigration(dialect),
      '0017_catalog_ranking': catalogRankingMigration(dialect),
      '0018_catalog_owner_counts': catalogOwnerCountMigration(dialect),
      '0019_bee_health_versions': healthVersionMigration,
      '0020_catalog_secret_keys': catalogSecretKeyMigration
    })
  }
}
