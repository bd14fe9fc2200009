import { type Kysely, type Migration, sql } from 'kysely'

/** A published Bee's own rate limit, set by its publisher to spare its upstream. */
export const rateLimitsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('published_bees').addColumn('calls_per_minute', 'integer', (c) => c.check(sql`calls_per_minute > 0`)).execute()
  }
}
