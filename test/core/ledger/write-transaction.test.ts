import Database from 'better-sqlite3'
import { Kysely, SqliteDialect, sql } from 'kysely'
import { test } from 'tap'
import type { Tables } from '../../../src/core/ledger/tables.js'
import { writeTransaction } from '../../../src/core/ledger/write-transaction.js'

test('SQLite: a write that fills the database throws SQLITE_FULL, not the failed ROLLBACK after it, and the next write works', async (t) => {
  const database = new Database(':memory:')
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }) })
  t.teardown(() => db.destroy())
  await sql`CREATE TABLE notes (text TEXT)`.execute(db)
  // The file may not grow: a full disk, as SQLite sees one.
  database.pragma(`max_page_count = ${Number(database.pragma('page_count', { simple: true }))}`)
  const writing = writeTransaction(db, 'sqlite')
  await t.rejects(writing(async (trx) => { await sql`INSERT INTO notes VALUES (${'x'.repeat(100_000)})`.execute(trx) }),
    { code: 'SQLITE_FULL', message: 'database or disk is full' })
  t.notOk(database.inTransaction, 'SQLite rolled the transaction back itself')

  database.pragma('max_page_count = 1000')
  await writing(async (trx) => { await sql`INSERT INTO notes VALUES ('room again')`.execute(trx) })
  t.same((await sql<{ text: string }>`SELECT text FROM notes`.execute(db)).rows, [{ text: 'room again' }])
})
