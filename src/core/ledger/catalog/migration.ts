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

/**
 * The catalog's search index, the database's own full-text search: one row per Bee (published or
 * built-in), kept in the same transaction as the Bee. PostgreSQL: a weighted tsvector (id and name A,
 * category and colony B, description C) under a GIN index. SQLite: an FTS5 table ranked by bm25() with
 * the same weights per column.
 */
export function catalogSearchMigration (dialect: Dialect): Migration {
  return {
    async up (db: Kysely<any>) {
      if (dialect === 'postgres') {
        await sql`CREATE TABLE catalog_search (
          id text PRIMARY KEY,
          name text NOT NULL,
          category text NOT NULL,
          colony text NOT NULL,
          description text NOT NULL,
          document tsvector GENERATED ALWAYS AS (
            setweight(to_tsvector('english', id || ' ' || name), 'A') ||
            setweight(to_tsvector('english', category || ' ' || colony), 'B') ||
            setweight(to_tsvector('english', description), 'C')
          ) STORED
        )`.execute(db)
        await sql`CREATE INDEX catalog_search_document ON catalog_search USING gin (document)`.execute(db)
      } else {
        await sql`CREATE VIRTUAL TABLE catalog_search USING fts5(id, name, category, colony, description, tokenize = 'porter unicode61')`.execute(db)
      }
      await sql`INSERT INTO catalog_search (id, name, category, colony, description)
        SELECT id, name, category, colony, description FROM published_bees`.execute(db)
    }
  }
}
