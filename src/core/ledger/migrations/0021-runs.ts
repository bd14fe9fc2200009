import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

/**
 * Long-running Bees: how a published Bee's calls run (sync, async, stream), and the runs of async Bees. A run row is
 * also its job: a worker claims it under a lease (a run whose worker died is claimed again once the lease passes).
 */
export const runsMigration = (dialect: Dialect): Migration => ({
  async up (db: Kysely<any>) {
    await db.schema.alterTable('published_bees').addColumn('execution_mode', 'text',
      (c) => c.notNull().defaultTo('sync').check(sql`execution_mode in ('sync', 'async', 'stream')`)).execute()
    await db.schema.alterTable('published_bees').addColumn('max_run_seconds', 'integer', (c) => c.check(sql`max_run_seconds > 0`)).execute()
    await db.schema.alterTable('published_bees').addColumn('event_schema', 'text').execute()

    await db.schema.createTable('runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('bee_id', 'text', (c) => c.notNull())
      // Who may read the run: the hash of the credential that started it, or of the run key handed out with it.
      .addColumn('owner_hash', 'text')
      .addColumn('key_hash', 'text')
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired')`))
      .addColumn('input', 'text', (c) => c.notNull())
      .addColumn('idempotency_key', 'text')
      .addColumn('request_hash', 'text')
      .addColumn('hold_id', dialect === 'postgres' ? 'bigint' : 'integer')
      .addColumn('request_id', 'text', (c) => c.notNull())
      .addColumn('progress', 'real')
      .addColumn('honey', 'text')
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('max_run_seconds', 'integer', (c) => c.notNull())
      .addColumn('run_token', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute()
    // Ids sort by creation time: a caller's list pages newest first by id.
    await db.schema.createIndex('runs_by_owner').on('runs').columns(['owner_hash', 'id']).execute()
    await db.schema.createIndex('runs_due').on('runs').columns(['status', 'lease_until']).execute()
    await db.schema.createIndex('runs_by_expiry').on('runs').columns(['status', 'expires_at']).execute()
    await db.schema.createIndex('runs_finished').on('runs').columns(['finished_at']).execute()
    await db.schema.createIndex('runs_idempotency').on('runs').columns(['owner_hash', 'idempotency_key']).unique()
      .where(sql.ref('idempotency_key'), 'is not', null).execute()
  }
})
