/** What is wrong with the ledger database when a statement failed for a reason of the database's, not the call's. */
export type StoreFaultCode = 'STORE_UNAVAILABLE' | 'STORE_FULL'

/** A network error: the database cannot be reached, or the connection to it broke. */
const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED'])

/**
 * PostgreSQL's SQLSTATEs of a server that is away or cannot take work: a connection exception (class 08), an operator
 * intervention (57P01 terminated by an administrator or a restart, 57P02 crash, 57P03 starting up or shutting down,
 * 57P05 idle session timeout), insufficient resources (class 53; 53100 is the disk full) and a read-only transaction
 * (25006: a standby after a failover, before the new primary is in the URL's place).
 */
const POSTGRES_AWAY = /^(08...|57P0[1235]|53...|25006)$/
const POSTGRES_DISK_FULL = '53100'

/** pg's own errors for a connection that broke or never opened (they carry no code). */
const PG_CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable)/

/**
 * SQLite's result codes of a file the service cannot write now: SQLITE_FULL (the disk), SQLITE_IOERR_* (the disk
 * failing, or gone), SQLITE_BUSY (another process held the write lock past busy_timeout), SQLITE_READONLY_* (the file
 * or its file system became read-only), SQLITE_CANTOPEN (its folder went away).
 */
const SQLITE_AWAY = /^SQLITE_(IOERR|BUSY|READONLY|CANTOPEN)/

/**
 * Whether `error` is the ledger database being unreachable or full, rather than a fault of the statement or the
 * service: null for everything else (a constraint, a bug), which stays a 500.
 */
export function storeFaultOf (error: unknown): StoreFaultCode | null {
  if (!(error instanceof Error)) return null
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string') {
    if (code === 'SQLITE_FULL' || code === POSTGRES_DISK_FULL) return 'STORE_FULL'
    if (NETWORK_ERRORS.has(code) || POSTGRES_AWAY.test(code) || SQLITE_AWAY.test(code)) return 'STORE_UNAVAILABLE'
    return null
  }
  return PG_CONNECTION_MESSAGES.test(error.message) ? 'STORE_UNAVAILABLE' : null
}
