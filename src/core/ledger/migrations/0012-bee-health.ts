import type { Kysely, Migration } from 'kysely'
import { latencyColumns } from '../health/columns.js'

/**
 * Bee health: additive counters per minute and Bee (runs, failures, nonconforming answers, and a latency
 * histogram, one column per bucket). The key starts with the minute, so reading the window and pruning old
 * minutes are both ranges of it.
 */
export const healthMigration: Migration = {
  async up (db: Kysely<any>) {
    let table = db.schema.createTable('bee_health')
      .addColumn('minute', 'integer', (c) => c.notNull())
      .addColumn('bee_id', 'text', (c) => c.notNull())
      .addColumn('calls', 'integer', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('nonconforming', 'integer', (c) => c.notNull())
    for (const column of latencyColumns) table = table.addColumn(column, 'integer', (c) => c.notNull())
    await table.addPrimaryKeyConstraint('bee_health_pk', ['minute', 'bee_id']).execute()
  }
}
