import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * PostgreSQL's ranked search as a function that plans its query without a sequential scan. The planner costs
 * `document @@ query` at one operator per row, so for a word in a tenth of the catalog it reads every row and
 * matches each (100,000 Bees: 24–35 ms), where the GIN index finds the same rows in 3 ms and the whole query takes
 * 12–17 ms (EXPLAIN ANALYZE, docs/performance.md). A function's own SET holds for its query alone, in one round trip.
 * Ranked by ts_rank, not ts_rank_cd: it does not weigh how close the words stand, costs less per row, and ranked the
 * labelled queries at least as well (eval/search/RESULTS.md). SQLite's FTS5 has no such choice to make.
 */
export function catalogRankingMigration (dialect: Dialect): Migration {
  return {
    async up (db: Kysely<any>) {
      if (dialect !== 'postgres') return
      await sql`
        CREATE FUNCTION catalog_search_ranked (words text, row_limit integer)
        RETURNS TABLE (id text, relevance real)
        LANGUAGE sql STABLE
        SET enable_seqscan = off
        AS $$
          SELECT s.id, ts_rank(s.document, q) AS relevance
          FROM catalog_search s, websearch_to_tsquery('english', words) AS q
          WHERE s.document @@ q ORDER BY relevance DESC, s.id LIMIT row_limit
        $$`.execute(db)
    }
  }
}
