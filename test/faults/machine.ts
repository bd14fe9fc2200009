import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import type { Test } from 'tap'
import type { Books } from './harness.js'
import { run, sleep, until } from './harness.js'

/**
 * The machine's PostgreSQL and Redis, stopped and started as CI does (as root), and a tmpfs. Each case leaves them as
 * it found them, running on 127.0.0.1, whatever happens in it: its teardown starts whatever it stopped.
 */

const databaseUrl = () => new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')

/** The PostgreSQL cluster (version and name) that serves TEST_DATABASE_URL's port, from pg_lsclusters. */
async function cluster (): Promise<[string, string, string]> {
  const port = databaseUrl().port === '' ? '5432' : databaseUrl().port
  const { stdout } = await run('pg_lsclusters', ['-h'])
  const line = stdout.split('\n').map((row) => row.trim().split(/\s+/)).find((row) => row[2] === port)
  if (line === undefined) throw new Error(`no PostgreSQL cluster on port ${port} in pg_lsclusters`)
  return [line[0] as string, line[1] as string, line[3] as string]
}

const pgctl = async (action: 'start' | 'stop' | 'restart') => {
  const [version, name] = await cluster()
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, name, action])
}

export const postgresAnswers = async () => {
  const client = new pg.Client({ connectionString: databaseUrl().toString(), connectionTimeoutMillis: 1000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/** Restarts PostgreSQL; resolves when it takes connections again, with the time it took. */
export async function restartPostgres (t: Test): Promise<number> {
  t.teardown(ensurePostgres)
  const started = Date.now()
  await pgctl('restart')
  await until(30_000, postgresAnswers)
  return Date.now() - started
}

export async function stopPostgres (t: Test): Promise<void> {
  t.teardown(ensurePostgres)
  await pgctl('stop')
}

export async function startPostgres (): Promise<void> {
  await pgctl('start')
  if (await until(30_000, postgresAnswers) === null) throw new Error('PostgreSQL did not come back')
}

/** Starts PostgreSQL if a case left it stopped. */
export async function ensurePostgres (): Promise<void> {
  const [, , status] = await cluster()
  if (status !== 'online') await startPostgres()
}

/** Ends every connection of the service's (its application_name) from outside, as an operator or a pooler does. */
export async function terminateConnections (applicationName: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl().toString() })
  await client.connect()
  try {
    const { rows } = await client.query<{ n: number }>('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1', [applicationName])
    return rows[0]?.n ?? 0
  } finally {
    await client.end()
  }
}

const redisUrl = () => new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379')
const redisCli = async (...args: string[]) => (await run('redis-cli', ['-h', redisUrl().hostname, '-p', redisUrl().port || '6379', ...args])).stdout.trim()

export const redisAnswers = async () => await redisCli('ping').then((answer) => answer === 'PONG', () => false)

/** How the running Redis was started, read from it, so that it starts again the same way. */
async function redisSettings (): Promise<string[]> {
  const setting = async (name: string) => (await redisCli('--raw', 'config', 'get', name)).split('\n')[1] ?? ''
  return [
    '--daemonize', 'yes', '--bind', ...(await setting('bind')).split(' '), '--port', await setting('port'),
    '--save', await setting('save'), '--appendonly', await setting('appendonly'), '--dir', await setting('dir'), '--logfile', await setting('logfile')
  ]
}

/** Shuts Redis down (nothing saved); the returned function starts it again as it was, once. */
export async function shutDownRedis (t: Test): Promise<() => Promise<void>> {
  const settings = await redisSettings()
  let started = false
  const start = async () => {
    if (started) return
    started = true
    await run('redis-server', settings)
    if (await until(10_000, redisAnswers) === null) throw new Error('Redis did not come back')
  }
  t.teardown(async () => { if (!await redisAnswers()) await start() })
  await redisCli('shutdown', 'nosave').catch(() => {})
  if (await until(5000, async () => !await redisAnswers()) === null) throw new Error('Redis did not shut down')
  return start
}

/** Counts Redis keys under `prefix`: the counters the service writes once it counts again. */
export const redisKeys = async (prefix: string) => (await redisCli('--scan', '--pattern', `${prefix}*`)).split('\n').filter((key) => key !== '').length

/** A tmpfs of `megabytes` mounted on a folder of its own, unmounted and removed when the test ends. */
export async function tmpfs (t: Test, megabytes: number): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'apiary-full-'))
  await run('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', folder])
  t.teardown(async () => {
    // A service still running on it is killed first, by its own teardown, registered later and so run earlier.
    for (let attempt = 0; attempt < 20; attempt++) {
      if (await run('umount', [folder]).then(() => true, () => false)) break
      await sleep(250)
    }
    rmSync(folder, { recursive: true, force: true })
  })
  return folder
}

async function settled (read: () => Promise<Books>, waitMs = 20_000): Promise<Books> {
  let books = await read()
  const deadline = Date.now() + waitMs
  while (books.pendingHolds > 0 && Date.now() < deadline) {
    await sleep(250)
    books = await read()
  }
  return books
}

/**
 * The wallet's books in a SQLite ledger, once its holds have settled (the sweeper voids the stranded ones); with the
 * service stopped, as they are (`waitMs` 0).
 */
export async function sqliteBooks (path: string, walletId: string, openingMicros: number, waitMs?: number): Promise<Books> {
  return await settled(async () => {
    const database = new Database(path)
    try {
      const { balance } = database.prepare('SELECT balance FROM wallets WHERE id = ?').get(walletId) as { balance: number }
      const captures = database.prepare("SELECT idempotency_key AS key, amount FROM journal WHERE wallet_id = ? AND kind = 'capture'").all(walletId) as Books['captures']
      const { n } = database.prepare("SELECT count(*) AS n FROM holds WHERE wallet_id = ? AND state = 'pending'").get(walletId) as { n: number }
      return { spentMicros: openingMicros - balance, captures, pendingHolds: n }
    } finally {
      database.close()
    }
  }, waitMs)
}

/** The same in a PostgreSQL ledger. */
export async function postgresBooks (url: string, walletId: string, openingMicros: number): Promise<Books> {
  return await settled(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const balance = Number((await client.query('SELECT balance FROM wallets WHERE id = $1', [walletId])).rows[0].balance)
      const captures = (await client.query("SELECT idempotency_key AS key, amount::int AS amount FROM journal WHERE wallet_id = $1 AND kind = 'capture'", [walletId])).rows as Books['captures']
      const pending = (await client.query("SELECT count(*)::int AS n FROM holds WHERE wallet_id = $1 AND state = 'pending'", [walletId])).rows[0].n as number
      return { spentMicros: openingMicros - balance, captures, pendingHolds: pending }
    } finally {
      await client.end()
    }
  })
}
