import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Discovery's keyset pages as index range scans: one index per filter a page takes, each ending in the id in the
 * order pages are read. PostgreSQL orders ids byte-wise (COLLATE "C", the order the service merges and pages in),
 * which the primary key, in the database's collation, cannot serve: without these a page sorted every active row
 * (100,000 Bees: a parallel scan and a top-N sort, 100–260 ms). The owner's index replaces the one on owner_id
 * alone, whose place it takes for counting an owner's Bees.
 */
export function catalogListingMigration (dialect: Dialect): Migration {
  const id = dialect === 'postgres' ? sql`id COLLATE "C"` : sql`id`
  const indexes = {
    published_bees_listing: sql`status, ${id}`,
    published_bees_listing_by_category: sql`status, category, ${id}`,
    published_bees_listing_by_colony: sql`status, colony, ${id}`,
    published_bees_listing_by_pricing: sql`status, pricing_type, ${id}`,
    published_bees_listing_by_owner: sql`owner_id, status, ${id}`
  }
  return {
    async up (db: Kysely<any>) {
      for (const [name, columns] of Object.entries(indexes)) {
        await sql`CREATE INDEX ${sql.id(name)} ON published_bees (${columns})`.execute(db)
      }
      await db.schema.dropIndex('published_bees_by_owner').execute()
      if (dialect === 'postgres') await sql`ANALYZE published_bees`.execute(db)
    }
  }
}
