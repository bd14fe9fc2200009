import { type Kysely, type Migration, sql } from 'kysely'

/**
 * A stream Bee's run keeps its events (and every run its progress) as rows, numbered from 1 within the run: any
 * instance serves them (GET /api/runs/{id}/events), and a reader resumes after the number it saw last (Last-Event-ID).
 * Deleted with their run.
 */
export const runEventsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createTable('run_events')
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('data', 'progress')`))
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('run_events_pk', ['run_id', 'seq'])
      .execute()
  }
}
