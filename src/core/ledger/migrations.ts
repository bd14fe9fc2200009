import { type Kysely, type MigrationProvider, Migrator } from 'kysely'
import type { Dialect } from './dialect.js'
import { ledgerMigration } from './migrations/0001-ledger.js'
import { publishingMigration } from './migrations/0002-publishing.js'
import { holdsMigration } from './migrations/0003-holds.js'
import { credentialsMigration } from './migrations/0004-credentials.js'
import { preparationsMigration } from './migrations/0005-preparations.js'
import { x402Migration } from './migrations/0006-x402.js'
import { rateLimitsMigration } from './migrations/0007-rate-limits.js'
import { walletTokensMigration } from './migrations/0008-wallet-tokens.js'
import { earningsMigration } from './migrations/0009-earnings.js'
import { subscriptionsMigration } from './migrations/0010-subscriptions.js'
import { subscriptionCallsMigration } from './migrations/0011-subscription-calls.js'
import { healthMigration } from './migrations/0012-bee-health.js'
import { catalogChangesMigration } from './migrations/0013-catalog-changes.js'
import { catalogSearchMigration } from './migrations/0014-catalog-search.js'
import { oauthMigration } from './migrations/0015-oauth.js'
import { catalogListingMigration } from './migrations/0016-catalog-listing.js'
import { catalogRankingMigration } from './migrations/0017-catalog-ranking.js'
import { catalogOwnerCountMigration } from './migrations/0018-catalog-owner-counts.js'
import { healthVersionMigration } from './migrations/0019-bee-health-versions.js'
import { catalogSecretKeyMigration } from './migrations/0020-catalog-secret-keys.js'
import { runsMigration } from './migrations/0021-runs.js'
import { beeVersionsMigration } from './migrations/0022-bee-versions.js'
import { importMappingsMigration } from './migrations/0023-import-mappings.js'
import { runEventsMigration } from './migrations/0024-run-events.js'
import { runCallbacksMigration } from './migrations/0025-run-callbacks.js'
import { pushConfigsMigration } from './migrations/0026-push-configs.js'

/**
 * One migration set for both backends, applied in order at start by Kysely's Migrator (which takes a
 * lock, so instances starting together on PostgreSQL migrate once). Each is a file of its own in migrations/,
 * named for its key here; the key is what the database records, so it never changes. Never edit a shipped
 * migration: add the next number.
 */
export function migrationsFor (dialect: Dialect): MigrationProvider {
  return {
    getMigrations: async () => ({
      '0001_ledger': ledgerMigration(dialect),
      '0002_publishing': publishingMigration(dialect),
      '0003_holds': holdsMigration(dialect),
      '0004_credentials': credentialsMigration,
      '0005_preparations': preparationsMigration,
      '0006_x402': x402Migration(dialect),
      '0007_rate_limits': rateLimitsMigration,
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
      '0020_catalog_secret_keys': catalogSecretKeyMigration,
      '0021_runs': runsMigration(dialect),
      '0022_bee_versions': beeVersionsMigration,
      '0023_import_mappings': importMappingsMigration,
      '0024_run_events': runEventsMigration,
      '0025_run_callbacks': runCallbacksMigration,
      '0026_push_configs': pushConfigsMigration
    })
  }
}

/** How many times the migration is tried again when another schema vanished under it (below). */
const SCHEMA_RACE_RETRIES = 10

/**
 * Brings the database up to date; returns the error, if any. Kysely's Migrator looks for its tables among every
 * schema's tables (its introspection calls has_schema_privilege and pg_get_serial_sequence on each), so a schema that
 * another deployment or a parallel test drops at that moment fails the look with that schema's name (3F000, "schema …
 * does not exist", or its table's, 42P01): the failure last round saw on Node 26, and CI again with three test processes. Ours exists (its
 * name came from current_schema()), so the migration is tried again; nothing of it ran (the look comes first).
 */
export async function migrateToLatest (db: Kysely<any>, dialect: Dialect, schema: string | undefined): Promise<unknown> {
  const migrator = new Migrator({ db, provider: migrationsFor(dialect), migrationTableSchema: schema })
  let { error } = await migrator.migrateToLatest()
  for (let retry = 0; retry < SCHEMA_RACE_RETRIES && droppedElsewhere(error, schema); retry++) ({ error } = await migrator.migrateToLatest())
  return error
}

/**
 * A schema (3F000) or a table (42P01) that no longer exists, and not ours (`"other"` or `"other.table"`), or a
 * catalog row gone between two reads of the same query (XX000, "cache lookup failed"), which names no schema.
 */
function droppedElsewhere (error: unknown, schema: string | undefined): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  const message = String((error as Error | undefined)?.message)
  if (schema === undefined) return false
  if (code === 'XX000') return message.startsWith('cache lookup failed')
  if (code !== '3F000' && code !== '42P01') return false
  return !message.includes(`"${schema}"`) && !message.includes(`"${schema}.`)
}
