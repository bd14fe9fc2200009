import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

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
