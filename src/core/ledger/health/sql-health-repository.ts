import { sql, type Insertable, type Kysely } from 'kysely'
import type { MinuteCounts } from '../../health/counts.js'
import type { Dialect } from '../migrations.js'
import type { Tables } from '../tables.js'
import { writeTransaction } from '../write-transaction.js'
import { latencyColumns } from './columns.js'
import type { HealthRepository } from './health-repository.js'

/** Rows per INSERT: 500 rows of 20 values stay well under SQLite's limit of bound parameters. */
const BATCH = 500

const counted = ['calls', 'failures', 'nonconforming', ...latencyColumns] as const

const toRow = (row: MinuteCounts): Insertable<Tables['bee_health']> => ({
  minute: row.minute,
  bee_id: row.beeId,
  calls: row.calls,
  failures: row.failures,
  nonconforming: row.nonconforming,
  ...Object.fromEntries(latencyColumns.map((column, bucket) => [column, row.latency[bucket] ?? 0])) as Record<typeof latencyColumns[number], number>
})

/** Bee health counters over Kysely; the same statements on SQLite and PostgreSQL. */
export function sqlHealthRepository (db: Kysely<Tables>, dialect: Dialect): HealthRepository {
  const transaction = writeTransaction(db, dialect)
  // An existing minute gets the new counts added to its own: `bee_health.x + excluded.x` for every counter.
  const increments = Object.fromEntries(counted.map((column) => [column, sql`bee_health.${sql.ref(column)} + excluded.${sql.ref(column)}`]))
  return {
    async add (rows) {
      if (rows.length === 0) return
      await transaction(async (trx) => {
        for (let start = 0; start < rows.length; start += BATCH) {
          await trx.insertInto('bee_health').values(rows.slice(start, start + BATCH).map(toRow))
            .onConflict((conflict) => conflict.columns(['minute', 'bee_id']).doUpdateSet(increments))
            .execute()
        }
      })
    },

    async window (sinceMinute) {
      const rows = await db.selectFrom('bee_health')
        .select((eb) => ['bee_id', ...counted.map((column) => eb.fn.sum<number | string>(column).as(column))])
        .where('minute', '>=', sinceMinute)
        .groupBy('bee_id')
        .execute() as Array<Record<string, number | string> & { bee_id: string }>
      // PostgreSQL sums integers as bigint (handed back as numbers here, see openStore) or numeric: Number() either way.
      return rows.map((row) => ({
        beeId: row.bee_id,
        calls: Number(row.calls),
        failures: Number(row.failures),
        nonconforming: Number(row.nonconforming),
        latency: latencyColumns.map((column) => Number(row[column]))
      }))
    },

    async prune (beforeMinute) {
      const result = await db.deleteFrom('bee_health').where('minute', '<', beforeMinute).executeTakeFirst()
      return Number(result.numDeletedRows)
    }
  }
}
