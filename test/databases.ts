import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export interface Backend {
  name: 'sqlite' | 'postgres'
  /** A DATABASE_URL of its own, so parallel test files and runs never share data. */
  url: string
  drop (): Promise<void>
}

/** Why the PostgreSQL variant of a test is skipped, or false when it runs. */
export const postgresSkip = process.env.TEST_DATABASE_URL === undefined || process.env.TEST_DATABASE_URL === ''
  ? 'TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)'
  : false

/** A fresh SQLite file in a temporary folder. */
export function sqliteBackend (): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-db-'))
  return { name: 'sqlite', url: join(dir, 'ledger.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) }
}

/** A schema of its own on the test server, created now and dropped by drop(). */
export async function postgresBackend (): Promise<Backend> {
  const serverUrl = process.env.TEST_DATABASE_URL as string
  const schema = `apiary_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.searchParams.set('options', `-c search_path=${schema}`)
  return {
    name: 'postgres',
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`DROP SCHEMA ${schema} CASCADE`)
      await client.end()
    }
  }
}

/** Each backend the machine offers, with the reason when PostgreSQL is skipped. */
export const backends: Array<{ name: Backend['name'], skip: string | false, open: () => Promise<Backend> }> = [
  { name: 'sqlite', skip: false, open: async () => sqliteBackend() },
  { name: 'postgres', skip: postgresSkip, open: postgresBackend }
]
