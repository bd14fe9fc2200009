import { type Kysely, sql } from 'kysely'
import type { Dialect } from './migrations.js'
import type { Tables } from './tables.js'

export type WriteTransaction = <T>(work: (trx: Kysely<Tables>) => Promise<T>) => Promise<T>

/**
 * A transaction that writes from its start. On SQLite, BEGIN IMMEDIATE takes the write lock first:
 * a deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
 * connection (a second process: the wallet CLI) writes in between, instead of waiting its turn.
 */
export function writeTransaction (db: Kysely<Tables>, dialect: Dialect): WriteTransaction {
  if (dialect === 'postgres') return async (work) => await db.transaction().execute(work)
  return async (work) => await db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection)
    try {
      const result = await work(connection)
      await sql`COMMIT`.execute(connection)
      return result
    } catch (error) {
      await sql`ROLLBACK`.execute(connection)
      throw error
    }
  })
}
