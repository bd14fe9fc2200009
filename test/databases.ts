import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import type { Ledger } from '../src/core/ledger/ledger.js'
import { openStore, type StoreOptions } from '../src/core/ledger/open-store.js'
import { issueWallet } from '../src/core/ledger/wallets/issue-wallet.js'

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
      // pg-boss's tables, where website preparation jobs queue (see PgBossQueue).
      await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`)
      await client.end()
    }
  }
}

/** Each backend the machine offers, with the reason when PostgreSQL is skipped. */
export const backends: Array<{ name: Backend['name'], skip: string | false, open: () => Promise<Backend> }> = [
  { name: 'sqlite', skip: false, open: async () => sqliteBackend() },
  { name: 'postgres', skip: postgresSkip, open: postgresBackend }
]

/** Runs statements on a backend's database directly (not through the store under test); returns the last one's rows. */
export async function runSql (backend: Backend, statements: string[]): Promise<unknown[]> {
  let rows: unknown[] = []
  if (backend.name === 'sqlite') {
    const database = new Database(backend.url)
    try {
      for (const text of statements) {
        const statement = database.prepare(text)
        rows = statement.reader ? statement.all() : (statement.run(), [])
      }
    } finally {
      database.close()
    }
    return rows
  }
  const client = new pg.Client({ connectionString: backend.url })
  await client.connect()
  try {
    for (const text of statements) rows = (await client.query(text)).rows
  } finally {
    await client.end()
  }
  return rows
}

export async function countRows (backend: Backend, table: string): Promise<number> {
  const [row] = await runSql(backend, [`SELECT count(*) AS n FROM ${table}`]) as Array<{ n: number | string }>
  return Number(row?.n)
}

/** A wallet with a fresh token, issued straight on a ledger opened by the test: refused issues fail the test. */
export async function issuedWallet (ledger: Ledger, micros: number, label: string | null = null) {
  const issued = await issueWallet(ledger.wallets, { micros, currency: 'USD', label })
  if (!issued.ok) throw new Error(`wallet refused: ${issued.reason}`)
  return issued.wallet
}

export interface LedgerSums {
  /** Wallet balances + pending holds + earnings balances: where every deposited micro-unit is now. */
  held: number
  /** Deposits into wallets + x402 sales (paid on chain, outside any wallet) − payouts: what came in, less what went out. */
  owed: number
}

/**
 * TigerBeetle's invariant, read in ONE statement (one snapshot on PostgreSQL, one read transaction on
 * SQLite), straight from the database and not through the store under test: at every instant `held`
 * must equal `owed`.
 */
export async function ledgerSums (backend: Backend): Promise<LedgerSums> {
  const [row] = await runSql(backend, [`SELECT
    (SELECT COALESCE(SUM(balance), 0) FROM wallets) AS wallets,
    (SELECT COALESCE(SUM(amount), 0) FROM holds WHERE state = 'pending') AS pending,
    (SELECT COALESCE(SUM(CASE WHEN kind = 'payout' THEN -amount ELSE amount END), 0) FROM earnings) AS earned,
    (SELECT COALESCE(SUM(amount), 0) FROM journal WHERE kind = 'deposit') AS deposits,
    (SELECT COALESCE(SUM(amount + fee), 0) FROM earnings WHERE kind = 'x402') AS external,
    (SELECT COALESCE(SUM(amount), 0) FROM earnings WHERE kind = 'payout') AS payouts`]) as Array<Record<string, number | string>>
  const n = (key: string) => Number(row?.[key])
  return { held: n('wallets') + n('pending') + n('earned'), owed: n('deposits') + n('external') - n('payouts') }
}

/**
 * Two ledgers on one database as two instances open it, closed when the test ends: on PostgreSQL two stores,
 * each with its own pool; on SQLite one store standing for both (one process owns the file).
 */
export async function twoInstances (t: { teardown (fn: () => unknown): void }, backend: Backend, options: StoreOptions): Promise<[Ledger, Ledger]> {
  const first = await openStore(backend.url, options)
  t.teardown(() => first.close())
  if (backend.name !== 'postgres') return [first, first]
  const second = await openStore(backend.url, options)
  t.teardown(() => second.close())
  return [first, second]
}

/** A published Bee as the catalog stores it, with `fields` in place of the defaults. */
export const storedBee = <T extends object>(id: string, ownerId: string, at: string, fields: T) => ({
  id,
  ownerId,
  ownerEmail: 'a@example.com',
  name: 'N',
  description: 'D',
  category: 'data',
  colony: 'community',
  endpoint: 'https://bees.example.com/x',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object' },
  primaryServices: [] as string[],
  pricing: { type: 'free' as const, costMicros: 0, currency: 'USD' },
  status: 'active' as const,
  statusMessage: null,
  sunsetAt: null,
  callsPerMinute: null as number | null,
  signingSecret: 'bsk_x',
  version: 1,
  semver: '1.0.0',
  upstreamMapping: null,
  upstreamCredential: null,
  execution: { mode: 'sync' as const, maxRunSeconds: null, eventSchema: null },
  createdAt: at,
  updatedAt: at,
  ...fields
})
