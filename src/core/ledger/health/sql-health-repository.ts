import { sql, type Insertable, type Kysely } from 'kysely'
import type { MinuteCounts } from '../../health/counts.js'
import type { Dialect } from '../dialect.js'
import type { Tables } from '../tables.js'
import { writeTransaction } from '../write-transaction.js'
import { latencyColumns } from './columns.js'
import type { BeeWindow, HealthRepository } from './health-repository.js'

/** Rows per INSERT: 500 rows of 21 values stay well under SQLite's limit of bound parameters. */
const BATCH = 500
/** Bees per window read of some Bees: their ids are bound parameters too. */
const BEES_PER_READ = 1000

const counted = ['calls', 'failures', 'nonconforming', ...latencyColumns] as const

const toRow = (row: MinuteCounts, version: number): Insertable<Tables['bee_health']> => ({
  minute: row.minute,
  bee_id: row.beeId,
  calls: row.calls,
  failures: row.failures,
  nonconforming: row.nonconforming,
  version,
  ...Object.fromEntries(latencyColumns.map((column, bucket) => [column, row.latency[bucket] ?? 0])) as Record<typeof latencyColumns[number], number>
})

// Every sum in one text column, split here: at 10,000 Bees, nineteen columns made better-sqlite3 build 10,000
// objects of twenty properties, which took longer than the query itself (57 against 25-30 ms for the read).
const sums = sql<string>`${sql.join(counted.map((column) => sql`sum(${sql.ref(column)})`), sql` || ',' || `)}`

const toWindow = (row: { bee_id: string, first_minute: number | string, sums: string }): BeeWindow => {
  // PostgreSQL sums integers as bigint: exact in text, and far below 2^53 for counts of runs.
  const [calls, failures, nonconforming, ...latency] = row.sums.split(',').map(Number)
  return { beeId: row.bee_id, firstMinute: Number(row.first_minute), calls: calls!, failures: failures!, nonconforming: nonconforming!, latency }
}

/** Bee health counters over Kysely; the same statements on SQLite and PostgreSQL. */
export function sqlHealthRepository (db: Kysely<Tables>, dialect: Dialect): HealthRepository {
  const transaction = writeTransaction(db, dialect)
  // An existing minute gets the new counts added to its own: `bee_health.x + excluded.x` for every counter.
  const increments = {
    ...Object.fromEntries(counted.map((column) => [column, sql`bee_health.${sql.ref(column)} + excluded.${sql.ref(column)}`])),
    version: sql<number>`excluded.version`
  }
  const windowOf = (sinceMinute: number) => db.selectFrom('bee_health')
    .select((eb) => ['bee_id', eb.fn.min('minute').as('first_minute'), sums.as('sums')])
    .where('minute', '>=', sinceMinute)
    .groupBy('bee_id')
  return {
    async add (rows) {
      if (rows.length === 0) return
      await transaction(async (trx) => {
        // Held until commit: the next write waits here, so versions commit in order.
        const { version } = await trx.updateTable('bee_health_version').set((eb) => ({ version: eb('version', '+', 1) }))
          .where('id', '=', 1).returning('version').executeTakeFirstOrThrow()
        for (let start = 0; start < rows.length; start += BATCH) {
          await trx.insertInto('bee_health').values(rows.slice(start, start + BATCH).map((row) => toRow(row, Number(version))))
            .onConflict((conflict) => conflict.columns(['minute', 'bee_id']).doUpdateSet(increments))
            .execute()
        }
      })
    },

    async version () {
      const { version } = await db.selectFrom('bee_health_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow()
      return Number(version)
    },

    async changedSince (version) {
      const rows = await db.selectFrom('bee_health').select('bee_id').distinct().where('version', '>', version).execute()
      return rows.map((row) => row.bee_id)
    },

    async window (sinceMinute, beeIds) {
      if (beeIds === undefined) return (await windowOf(sinceMinute).execute()).map(toWindow)
      const found: BeeWindow[] = []
      for (let start = 0; start < beeIds.length; start += BEES_PER_READ) {
        const rows = await windowOf(sinceMinute).where('bee_id', 'in', beeIds.slice(start, start + BEES_PER_READ)).execute()
        for (const row of rows) found.push(toWindow(row))
      }
      return found
    },

    async prune (beforeMinute) {
      const result = await db.deleteFrom('bee_health').where('minute', '<', beforeMinute).executeTakeFirst()
      return Number(result.numDeletedRows)
    }
  }
}
