import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely'
import pg from 'pg'
import { migrationsFor, type Dialect } from './migrations.js'
import { createSqlStore } from './sql-store.js'
import type { LedgerStore } from './store.js'
import type { Tables } from './tables.js'

export interface StoreOptions {
  /** PostgreSQL connections per instance. */
  poolSize?: number
}

export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//.test(url)

/** A path, `sqlite:PATH`, or `:memory:`. */
export function sqlitePath (databaseUrl: string): string {
  return databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') : databaseUrl
}

function postgres (url: string, poolSize: number): Kysely<Tables> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // bigint (OID 20) holds micro-units; every value we store is a safe integer.
    types: { getTypeParser: (oid: number, format?: any) => oid === 20 ? Number : pg.types.getTypeParser(oid, format) }
  })
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) })
}

function sqlite (path: string): Kysely<Tables> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const database = new Database(path)
  database.pragma('journal_mode = WAL')
  // NORMAL in WAL mode: a commit survives a crash of the process; an OS crash or power loss may lose
  // the last commits but never corrupts the file (see the README).
  database.pragma('synchronous = NORMAL')
  database.pragma('busy_timeout = 5000')
  database.pragma('foreign_keys = ON')
  return new Kysely<Tables>({ dialect: new SqliteDialect({ database }) })
}

/**
 * Opens the ledger named by DATABASE_URL, `postgres://…` for PostgreSQL and anything else for the
 * embedded SQLite file, and brings its schema up to date before returning.
 */
export async function openStore (databaseUrl: string, options: StoreOptions = {}): Promise<LedgerStore> {
  const dialect: Dialect = isPostgresUrl(databaseUrl) ? 'postgres' : 'sqlite'
  const db = dialect === 'postgres' ? postgres(databaseUrl, options.poolSize ?? 10) : sqlite(sqlitePath(databaseUrl))
  const { error } = await new Migrator({ db, provider: migrationsFor(dialect) }).migrateToLatest()
  if (error !== undefined) {
    await db.destroy()
    throw error
  }
  return createSqlStore(db, dialect, () => db.destroy())
}
