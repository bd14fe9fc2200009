import { ConfigSchema, type Config } from './config.js'
import { isPostgresUrl } from './core/ledger/open-store.js'

type StartupConfig = Pick<Config, 'HOST' | 'PORT' | 'DATABASE_URL'>

/** A failure's own code, or that of the first of several (Node reports a refused dual-stack connect as an AggregateError). */
function codeOf (error: unknown): string | undefined {
  const { code, errors } = error as { code?: unknown, errors?: unknown[] }
  if (typeof code === 'string') return code
  return errors?.map(codeOf).find((inner) => inner !== undefined)
}

/** Where DATABASE_URL points, never its password: host:port/database. */
function postgresTarget (url: string): { where: string, database: string } {
  const parsed = URL.canParse(url) ? new URL(url) : null
  const database = decodeURIComponent(parsed?.pathname.slice(1) ?? '') || '(the user\'s default)'
  return { where: `${parsed?.hostname ?? '?'}:${parsed?.port || '5432'}`, database }
}

/** What PostgreSQL's own codes (SQLSTATE) and the connection's system codes mean for an operator, by code. */
function postgresProblem (code: string | undefined, url: string): string | null {
  const { where, database } = postgresTarget(url)
  const host = where.slice(0, where.lastIndexOf(':'))
  switch (code) {
    case 'ECONNREFUSED': return `DATABASE_URL: PostgreSQL at ${where} refused the connection; is it running, and listening on that address and port?`
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return `DATABASE_URL: the database host "${host}" does not resolve; check its name.`
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH': return `DATABASE_URL: PostgreSQL at ${where} cannot be reached (${code}); check the host, the port and the network.`
    case '3D000': return `DATABASE_URL: the database "${database}" does not exist on ${where}; create it (createdb ${database}) or fix its name.`
    case '28P01':
    case '28000': return `DATABASE_URL: PostgreSQL at ${where} refused the user or password (${code}); check the credentials in DATABASE_URL.`
    default: return null
  }
}

/**
 * The one line start-up prints when it fails, naming the cause and the variable to fix, or null when the
 * failure is not one an operator causes (a bug: the log's stack says more). Errors that already name their
 * variable (REDIS_URL: …, DATABASE_URL: …, Wrong SECRETS_KEY: …) are their own line.
 */
export function startupProblem (error: unknown, config: StartupConfig): string | null {
  const message = error instanceof Error ? error.message : String(error)
  const named = /^(?:Wrong )?([A-Z][A-Z0-9_]+)\b/.exec(message)?.[1]
  if (named !== undefined && named in ConfigSchema.properties) return message.split('\n', 1)[0] ?? message
  const code = codeOf(error)
  const address = `${config.HOST}:${config.PORT}`
  switch (code) {
    case 'EADDRINUSE': return `PORT: ${address} is already in use by another process; stop it, or set PORT (or HOST) to a free one.`
    case 'EACCES': if ((error as { syscall?: string }).syscall === 'listen') return `PORT: not allowed to listen on ${address} (a port below 1024 needs privileges); set PORT to 1024 or above.`
      break
    case 'EADDRNOTAVAIL': return `HOST: ${config.HOST} is not an address of this machine; set HOST to one of its addresses, or 0.0.0.0.`
    case 'SQLITE_CANTOPEN': return `DATABASE_URL: cannot open the SQLite file ${config.DATABASE_URL}; check that its folder is writable.`
  }
  return isPostgresUrl(config.DATABASE_URL) ? postgresProblem(code, config.DATABASE_URL) : null
}
