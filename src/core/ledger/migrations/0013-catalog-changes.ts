import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Incremental catalog changes: every catalog row carries the catalog version of its last change, and a
 * removal leaves a tombstone with its own, so an instance reads only what changed since the version it
 * last saw instead of the whole catalog. Rows already stored take the current version.
 */
export function catalogChangesMigration (dialect: Dialect): Migration {
  const sequence = dialect === 'postgres' ? 'bigint' : 'integer'
  return {
    async up (db: Kysely<any>) {
      for (const table of ['published_bees', 'builtin_bee_states']) {
        await db.schema.alterTable(table).addColumn('change_seq', sequence, (c) => c.notNull().defaultTo(0)).execute()
        await sql`UPDATE ${sql.table(table)} SET change_seq = (SELECT version FROM catalog_version WHERE id = 1)`.execute(db)
        await db.schema.createIndex(`${table}_by_change`).on(table).column('change_seq').execute()
      }
      await db.schema.createTable('catalog_removals')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('change_seq', sequence, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('catalog_removals_by_change').on('catalog_removals').column('change_seq').execute()
    }
  }
}
