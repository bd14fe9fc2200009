import { type Kysely, sql } from 'kysely'
import type { Dialect } from './dialect.js'
import type { Tables } from './tables.js'

export type WriteTransaction = <T>(work: (trx: Kysely<Tables>) => Promise<T>) => Promise<T>

/**
 * A transaction that writes from its start. On SQLite, BEGIN IMMEDIATE takes the write lock first:
 * a deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
 * connection (a second process: the wallet CLI) writes in between, instead of waiting its turn.
 *
 * SQLite rolls a transaction back by itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY, SQLITE_NOMEM); the
 * ROLLBACK after them then fails with "no transaction is active". Its documentation asks for the ROLLBACK all the same
 * and says that failure does no harm: the error that is thrown is the one that failed the work, never the rollback's.
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
      await sql`ROLLBACK`.execute(connection).catch(() => {})
      throw error
    }
  })
}
