import type Database from 'better-sqlite3'
import type { Kysely } from 'kysely'
import type { Pool } from 'pg'
import type { ChargeRequest } from './store.js'
import type { Tables } from './tables.js'

export interface Debited { id: number, wallet_id: string, balance: number }

/** Takes the price from the wallet and journals the charge, atomically, or returns undefined when it cannot. */
export type Debit = (request: ChargeRequest) => Promise<Debited | undefined>

/**
 * Group commit: the charges that arrive in one turn of the event loop are debited in one transaction,
 * each with its own conditional UPDATE (so none can overdraw), and answered only once it has committed.
 * One commit then serves many calls; if the transaction fails, none of the batch was charged.
 */
function groupCommit (commit: (requests: ChargeRequest[]) => Promise<Array<Debited | undefined>>): Debit {
  interface Waiting { request: ChargeRequest, resolve (debited: Debited | undefined): void, reject (error: unknown): void }
  let waiting: Waiting[] = []
  const flush = async () => {
    const batch = waiting
    waiting = []
    try {
      const results = await commit(batch.map((entry) => entry.request))
      batch.forEach((entry, i) => entry.resolve(results[i]))
    } catch (error) {
      for (const entry of batch) entry.reject(error)
    }
  }
  return (request) => new Promise((resolve, reject) => {
    waiting.push({ request, resolve, reject })
    // After this turn's I/O, so the calls that arrived together share the batch.
    if (waiting.length === 1) setImmediate(flush)
  })
}

/**
 * The hot path, and the one query the dialects force apart.
 *
 * PostgreSQL: one statement and one round trip per charge: the conditional debit and the journal row
 * together in a data-modifying CTE. The WHERE is re-checked on the locked row, so concurrent charges,
 * from any instance, never overdraw. It is a named statement, so each connection parses and plans it
 * once. (Batching charges into one transaction was measured slower here: it adds BEGIN and COMMIT
 * round trips and holds the wallet's row lock across the batch.)
 */
const CHARGE_SQL = `
  WITH debited AS (
    UPDATE wallets SET balance = balance - $1
    WHERE token_hash = $2 AND currency = $3 AND frozen = 0 AND balance >= $1
    RETURNING id, balance
  )
  INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, created_at)
  SELECT id, 'charge', $1, $4, $5, $6, $7 FROM debited
  RETURNING id, wallet_id, (SELECT balance FROM debited) AS balance`

export function postgresDebit (pool: Pool): Debit {
  return async (request) => {
    const { rows } = await pool.query<Debited>({
      name: 'apiary-charge',
      text: CHARGE_SQL,
      values: [request.micros, request.tokenHash, request.currency, request.beeId, request.requestId, request.idempotencyKey, new Date().toISOString()]
    })
    return rows[0]
  }
}

/**
 * SQLite is in-process (no round trip to save) and has no UPDATE inside a CTE: the same two
 * statements, prepared once, in an IMMEDIATE transaction. It runs holding Kysely's connection, so
 * it never lands inside a transaction Kysely has open on the same database handle.
 */
export function sqliteDebit (db: Kysely<Tables>, database: Database.Database): Debit {
  const debit = database.prepare<[number, string, string, number], { id: string, balance: number }>(
    'UPDATE wallets SET balance = balance - ? WHERE token_hash = ? AND currency = ? AND frozen = 0 AND balance >= ? RETURNING id, balance'
  )
  const journal = database.prepare<[string, number, string, string, string | null, string], { id: number }>(
    "INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, created_at) VALUES (?, 'charge', ?, ?, ?, ?, ?) RETURNING id"
  )
  const chargeOne = (request: ChargeRequest): Debited | undefined => {
    const wallet = debit.get(request.micros, request.tokenHash, request.currency, request.micros)
    if (wallet === undefined) return undefined
    const entry = journal.get(wallet.id, request.micros, request.beeId, request.requestId, request.idempotencyKey, new Date().toISOString())
    return { id: (entry as { id: number }).id, wallet_id: wallet.id, balance: wallet.balance }
  }
  const chargeAll = database.transaction((requests: ChargeRequest[]) => requests.map(chargeOne))
  return groupCommit((requests) => db.connection().execute(async () => chargeAll.immediate(requests)))
}
