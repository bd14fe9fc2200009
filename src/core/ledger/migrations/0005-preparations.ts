import { type Kysely, type Migration, sql } from 'kysely'

/** Website preparation records; each row is also its job, which workers claim under a lease. */
export const preparationsMigration: Migration = {
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
