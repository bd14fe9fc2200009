import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { Kysely, PostgresDialect, type SqliteDatabase, SqliteDialect, sql } from 'kysely'
import type { CatalogDialect } from './catalog/catalog-dialect.js'
import { type CatalogNotifications, noNotifications, postgresNotifications } from './catalog/notifications.js'
import { postgresCatalog } from './catalog/postgres-catalog.js'
import { sqlCatalogRepository } from './catalog/sql-catalog-repository.js'
import { sqliteCatalog } from './catalog/sqlite-catalog.js'
import { sqlEarningsRepository } from './earnings/sql-earnings-repository.js'
import { sqlHealthRepository } from './health/sql-health-repository.js'
import type { Debit } from './holds/debit.js'
import { postgresDebit } from './holds/postgres-debit.js'
import { sqlHoldRepository } from './holds/sql-hold-repository.js'
import { sqliteDebit } from './holds/sqlite-debit.js'
import { sqlIdempotencyRepository } from './idempotency/sql-idempotency-repository.js'
import { sqlJournalRepository } from './journal/sql-journal-repository.js'
import { sqlOAuthRepository } from './oauth/sql-oauth-repository.js'
import type { Logger } from '../logger.js'
import type { Ledger } from './ledger.js'
import type { Dialect } from './dialect.js'
import { migrateToLatest } from './migrations.js'
import { sqlPreparationRepository } from './preparations/sql-preparation-repository.js'
import { noRunNotifications, postgresRunNotifications, type RunNotifications } from './runs/notifications.js'
import { sqlRunCallbackRepository } from './run-callbacks/sql-run-callback-repository.js'
import { sqlRunRepository } from './runs/sql-run-repository.js'
import { parseSecretsKey, SecretBox } from './secrets.js'
import { sqlSettlementRepository } from './settlements/sql-settlement-repository.js'
import { sqlSigningKeyRepository } from './signing-keys/sql-signing-key-repository.js'
import { sqlTokenRepository } from './tokens/sql-token-repository.js'
import { postgresSubscriptions } from './subscriptions/postgres-subscriptions.js'
import { sqlSubscriptionRepository } from './subscriptions/sql-subscription-repository.js'
import { sqliteSubscriptions } from './subscriptions/sqlite-subscriptions.js'
import type { SubscriptionDialect } from './subscriptions/subscription-dialect.js'
import type { Tables } from './tables.js'
import { sqlWalletRepository } from './wallets/sql-wallet-repository.js'
import { startWalCheckpoints } from './wal-checkpoints.js'

export interface StoreOptions {
  /** PostgreSQL connections per instance. */
  poolSize?: number
  /** SECRETS_KEY: encrypts signing secrets. Unset: with SQLite, a key kept in a file next to the database. */
  secretsKey?: string
  /** SECRETS_KEY_PREVIOUS: keys that still decrypt. */
  previousSecretsKeys?: string[]
  /** PLATFORM_FEE_BPS: the operator's share of each sale of a published Bee, in basis points (default 0). */
  platformFeeBps?: number
  /**
   * PostgreSQL closed a pooled connection nobody was using (a restart, a terminated session, an idle timeout): the pool
   * has dropped it and opens another when one is needed. Unset, it is ignored.
   */
  onConnectionLost?: (error: Error) => void
  /** Where the store reports what goes wrong in the background (the WAL checkpoint thread); unset, nowhere. */
  log?: Logger
  /**
   * When SQLite's WAL checkpoint thread starts (wal-checkpoints.ts): for the server, a second after it listens. Unset, at
   * once.
   */
  checkpointsFrom?: Promise<void>
}

/**
 * The embedded default's key: generated on first use into `<database>.key` (mode 0600) and read from
 * there afterwards, so SQLite works without configuration. It guards a copy of the database file alone
 * (a backup, a dump), not a copy of the whole data folder: set SECRETS_KEY to keep the key elsewhere.
 */
function keyFileKey (path: string): Buffer {
  const file = `${path}.key`
  try {
    // 'wx' fails when the file exists: two processes starting together keep the first one's key.
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error
  }
  const key = parseSecretsKey(readFileSync(file, 'utf8'))
  if (key === null) throw new Error(`${file} does not hold a 32-byte base64 key; restore it, or set SECRETS_KEY`)
  return key
}

function secretBox (databaseUrl: string, dialect: Dialect, options: StoreOptions): SecretBox {
  return new SecretBox(() => {
    const previous = (options.previousSecretsKeys ?? []).flatMap((text) => parseSecretsKey(text) ?? [])
    const configured = options.secretsKey === undefined ? null : parseSecretsKey(options.secretsKey)
    if (configured !== null) return { current: configured, previous }
    if (options.secretsKey !== undefined) throw new Error('SECRETS_KEY is not 32 bytes as base64 or hex')
    if (dialect === 'postgres') throw new Error('SECRETS_KEY is required with PostgreSQL')
    const path = sqlitePath(databaseUrl)
    // An in-memory ledger lives and dies with the process, and so does its key.
    return { current: path === ':memory:' ? randomBytes(32) : keyFileKey(path), previous }
  })
}

export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//.test(url)

/** A path, `sqlite:PATH`, or `:memory:`. */
export function sqlitePath (databaseUrl: string): string {
  return databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '') : databaseUrl
}

interface Connected {
  db: Kysely<Tables>
  debit: (feeBps: number) => Debit
  notifications: (schema: string | undefined) => CatalogNotifications
  catalog: (notifications: CatalogNotifications) => CatalogDialect
  runNotifications: (schema: string | undefined) => RunNotifications
  subscriptions: SubscriptionDialect
  /** Resolves once the database answers; with `write`, once it takes a write. */
  ping: (write: boolean) => Promise<void>
  close: () => Promise<void>
}

/** The application_name of the service's connections, unless DATABASE_URL sets one: how an operator finds them in pg_stat_activity. */
export const APPLICATION_NAME = 'apiary'
/** How long a query waits for a pooled connection (a new one included) before it fails as the database unreachable. */
const CONNECT_TIMEOUT_MS = 10_000

// pg is loaded only when a PostgreSQL URL asks for it: the embedded default starts lighter without it.
async function postgres (url: string, poolSize: number, onConnectionLost: (error: Error) => void): Promise<Connected> {
  const { default: pg } = await import('pg')
  const pool = new pg.Pool({
    connectionString: url,
    // The URL's own application_name wins over this one (pg reads the connection string last).
    application_name: APPLICATION_NAME,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // bigint (OID 20) holds micro-units; every value we store is a safe integer.
    types: { getTypeParser: (oid: number, format?: any) => oid === 20 ? Number : pg.types.getTypeParser(oid, format) }
  })
  // An idle connection the server closed is dropped by the pool, which re-emits its error: unheard, that error would
  // end the process. A connection in use that breaks emits its error on the client too, with no listener of the
  // pool's while it is checked out: its query fails (the caller sees that), and the pool drops it when it comes back.
  pool.on('error', onConnectionLost)
  pool.on('connect', (client) => { client.on('error', () => {}) })
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) })
  return {
    db,
    debit: (feeBps) => postgresDebit(pool, feeBps),
    notifications: (schema) => postgresNotifications(url, schema ?? 'public'),
    catalog: (notifications) => postgresCatalog(db, notifications),
    runNotifications: (schema) => postgresRunNotifications(db, url, schema ?? 'public'),
    subscriptions: postgresSubscriptions(db),
    // On a connection of its own: whether the server takes connections and answers, not whether a pooled one the
    // server has just ended is still there (the pool drops those by itself). A full disk on PostgreSQL mostly stops the
    // server itself (it cannot write its WAL): answering is the test, writes or not.
    ping: async () => {
      const client = new pg.Client({ connectionString: url, application_name: APPLICATION_NAME, connectionTimeoutMillis: CONNECT_TIMEOUT_MS })
      client.on('error', () => {})
      try {
        await client.connect()
        await client.query('SELECT 1')
      } finally {
        await client.end().catch(() => {})
      }
    },
    close: () => db.destroy()
  }
}

/**
 * Kysely's SQLite driver prepares every statement anew; the queries it builds are few and their
 * text repeats, so statements are prepared once per text and reused.
 */
function withStatementCache (database: Database.Database): SqliteDatabase {
  const statements = new Map<string, ReturnType<Database.Database['prepare']>>()
  return {
    close: () => database.close(),
    prepare (text) {
      let statement = statements.get(text)
      if (statement === undefined) {
        statement = database.prepare(text)
        if (statements.size < 1000) statements.set(text, statement)
      }
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>
    }
  }
}

/**
 * Creates a folder and its missing parents one level at a time. Node's recursive mkdirSync spins forever
 * (at full CPU, deaf to SIGTERM) on a path it cannot create, such as one under /proc; one level at a time,
 * the first that cannot be made throws.
 */
function makeFolder (folder: string): void {
  if (existsSync(folder)) return
  const parent = dirname(folder)
  if (parent !== folder) makeFolder(parent)
  mkdirSync(folder)
}

/** SQLite's own threshold for a checkpoint after a commit, in pages of write-ahead log. */
const SQLITE_DEFAULT_CHECKPOINT_PAGES = 1000
/**
 * The threshold while the checkpoint thread runs: 4,000 pages (16 MB of log at most, about 19 MB measured under paid
 * load). At 1,000 this connection's own checkpoints still cost most of what the thread saves (docs/performance.md).
 */
const OWN_CHECKPOINT_PAGES = 4000

function sqlite (path: string, log: Logger | undefined, checkpointsFrom: Promise<void> | undefined): Connected {
  if (path !== ':memory:') {
    const folder = dirname(path)
    try {
      makeFolder(folder)
    } catch (error) {
      throw new Error(`DATABASE_URL: cannot create the folder ${folder} for the SQLite file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
    }
  }
  const database = new Database(path)
  database.pragma('journal_mode = WAL')
  // NORMAL in WAL mode: a commit survives a crash of the process; an OS crash or power loss may lose
  // the last commits but never corrupts the file (see docs/operators/postgresql-and-redis.md).
  database.pragma('synchronous = NORMAL')
  database.pragma('busy_timeout = 5000')
  database.pragma('foreign_keys = ON')
  // better-sqlite3 builds SQLite with a 16 MB page cache (SQLITE_DEFAULT_CACHE_SIZE=-16000), which a busy ledger fills
  // and malloc keeps: 17 MB of the service's peak RSS under paid calls. SQLite's own default, 2 MB, costs no throughput
  // measured (docs/performance.md, Memory); the pages it no longer holds are still in the OS's file cache.
  database.pragma('cache_size = -2000')
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) })
  // An in-memory database has no write-ahead log.
  const checkpoints = path === ':memory:' ? null : checkpointElsewhere(database, path, log, checkpointsFrom)
  return {
    db,
    debit: (feeBps) => sqliteDebit(db, database, feeBps),
    notifications: () => noNotifications,
    catalog: (notifications) => sqliteCatalog(db, notifications),
    runNotifications: () => noRunNotifications,
    subscriptions: sqliteSubscriptions(db),
    ping: async (write) => {
      if (!write) {
        await sql`SELECT 1`.execute(db)
        return
      }
      // The smallest write there is: the header's user_version, set to what it is, committed through the log. It fails
      // with SQLITE_FULL while the log cannot grow. Holding Kysely's connection, so it never lands in a transaction of its.
      await db.connection().execute(async () => {
        const version = Number(database.pragma('user_version', { simple: true }))
        database.transaction(() => database.pragma(`user_version = ${version}`)).immediate()
      })
    },
    // The thread's connection first: the last connection to close checkpoints what is left and removes the log. That
    // checkpoint is SQLite's own and says nothing when it fails; this one says why the log stays (a disk still full).
    close: async () => {
      await checkpoints?.stop()
      if (checkpoints !== null) {
        await db.connection().execute(async () => { database.pragma('wal_checkpoint(TRUNCATE)') }).catch((error: unknown) => {
          log?.warn({ reason: (error as Error).message }, 'the write-ahead log could not be checkpointed at close: it stays next to the database, which applies it when next opened')
        })
      }
      await db.destroy()
    }
  }
}

/**
 * The write-ahead log's checkpoints on a thread of their own (wal-checkpoints.ts). This connection still checkpoints
 * once the log passes OWN_CHECKPOINT_PAGES: by then the thread has copied most of it, so what is left is short, and only
 * a checkpoint by the connection that writes lets the log start over instead of growing while calls keep coming. If
 * the thread ends, SQLite's default comes back.
 */
function checkpointElsewhere (database: Database.Database, path: string, log: Logger | undefined, from: Promise<void> | undefined) {
  database.pragma(`wal_autocheckpoint = ${OWN_CHECKPOINT_PAGES}`)
  return startWalCheckpoints(path, (error) => {
    if (!database.open) return
    database.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_CHECKPOINT_PAGES}`)
    log?.warn({ err: error }, `the WAL checkpoint thread ended: the service's connection checkpoints every ${SQLITE_DEFAULT_CHECKPOINT_PAGES} pages itself from now on`)
  }, log, from)
}

/**
 * Opens the ledger named by DATABASE_URL, `postgres://…` for PostgreSQL and anything else for the
 * embedded SQLite file, and brings its schema up to date before returning.
 */
export async function openStore (databaseUrl: string, options: StoreOptions = {}): Promise<Ledger> {
  const dialect: Dialect = isPostgresUrl(databaseUrl) ? 'postgres' : 'sqlite'
  const { db, debit, notifications, catalog, runNotifications, subscriptions, ping, close } = dialect === 'postgres'
    ? await postgres(databaseUrl, options.poolSize ?? 10, options.onConnectionLost ?? (() => {}))
    : sqlite(sqlitePath(databaseUrl), options.log, options.checkpointsFrom)
  // Kysely looks for its migration tables in every schema it can see: pinned to ours, another Apiary
  // schema on the same PostgreSQL database (a second deployment, a parallel test) cannot hide them.
  const migrationTableSchema = dialect === 'postgres'
    ? (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db)).rows[0]?.schema
    : undefined
  const error = await migrateToLatest(db, dialect, migrationTableSchema)
  if (error !== undefined) {
    await close()
    throw error
  }
  const box = secretBox(databaseUrl, dialect, options)
  const catalogNotifications = notifications(migrationTableSchema)
  return {
    dialect,
    wallets: sqlWalletRepository(db),
    // The debit's statements are prepared against the migrated schema.
    holds: sqlHoldRepository(db, dialect, debit(options.platformFeeBps ?? 0)),
    journal: sqlJournalRepository(db),
    earnings: sqlEarningsRepository(db, dialect),
    idempotency: sqlIdempotencyRepository(db),
    catalog: sqlCatalogRepository(db, catalog(catalogNotifications), box, catalogNotifications),
    preparations: sqlPreparationRepository(db),
    runs: sqlRunRepository(db, dialect, runNotifications(migrationTableSchema)),
    runCallbacks: sqlRunCallbackRepository(db, box),
    subscriptions: sqlSubscriptionRepository(db, subscriptions, options.platformFeeBps ?? 0),
    settlements: sqlSettlementRepository(db, dialect, options.platformFeeBps ?? 0),
    tokens: sqlTokenRepository(db),
    signingKeys: sqlSigningKeyRepository(db, box),
    health: sqlHealthRepository(db, dialect),
    oauth: sqlOAuthRepository(db),
    ping: async (options) => { await ping(options?.write === true) },
    close
  }
}
