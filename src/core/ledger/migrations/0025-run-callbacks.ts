import { type Kysely, type Migration, sql } from 'kysely'

/**
 * Completion webhooks of runs: one row per URL a run's caller asked to be called back at, with the secret its
 * deliveries are signed with (Standard Webhooks), sealed under SECRETS_KEY, and its delivery state. A table of its own,
 * not columns of runs: a run may have several (A2A's push notification configs), set after it started. The row is
 * also its delivery's job: due once its run ended, claimed under a lease, retried with back-off. And the index a
 * wallet's unfinished runs are counted with (RUN_MAX_PER_WALLET).
 */
export const runCallbacksMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createTable('run_callbacks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      // No foreign key: the row is written before its run (see RunService.start), and outlives it until purged.
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('token', 'text')
      .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'delivered', 'failed')`))
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('last_status', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('delivered_at', 'text')
      .execute()
    await db.schema.createIndex('run_callbacks_by_run').on('run_callbacks').columns(['run_id']).execute()
    await db.schema.createIndex('run_callbacks_due').on('run_callbacks').columns(['state', 'next_attempt_at']).execute()
    await db.schema.createIndex('runs_by_owner_status').on('runs').columns(['owner_hash', 'status']).execute()
  }
}
