import { type Kysely, type Migration, sql } from 'kysely'

/**
 * Lets an instance read back only the Bees whose health counts changed since its last sync, instead of every
 * Bee's whole window (10,000 Bees called in the window: about 57 ms of SQLite every HEALTH_SYNC_MS). Every write
 * takes the next number of the one-row bee_health_version and stamps the rows it touched with it; taking it locks
 * that row until the write commits, so on PostgreSQL writes commit in the order of their numbers, and a reader that
 * saw version N has every write up to N. The second index serves one Bee's window, read again when it changed.
 */
export const healthVersionMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('bee_health').addColumn('version', 'bigint', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.createIndex('bee_health_by_version').on('bee_health').column('version').execute()
    await db.schema.createIndex('bee_health_by_bee').on('bee_health').columns(['bee_id', 'minute']).execute()
    await db.schema.createTable('bee_health_version')
      .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('version', 'bigint', (c) => c.notNull())
      .execute()
    await db.insertInto('bee_health_version').values({ id: 1, version: 0 }).execute()
  }
}
