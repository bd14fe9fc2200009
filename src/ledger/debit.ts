import type Database from 'better-sqlite3'
import type { Kysely } from 'kysely'
import type { Pool } from 'pg'
import type { HoldRequest } from './store.js'
import type { Tables } from './tables.js'

export interface Debited { id: number, wallet_id: string, balance: number }

/**
 * Takes the price from the wallet, journals the hold, records its state and links it to the
 * idempotency claim, atomically, or returns undefined when the wallet cannot pay.
 */
export type Debit = (request: HoldRequest) => Promise<Debited | undefined>

/**
 * Group commit: the holds that arrive in one turn of the event loop are debited in one transaction,
 * each with its own conditional UPDATE (so none can overdraw), and answered only once it has committed.
 * One commit then serves many calls; if the transaction fails, none of the batch was charged.
 */
function groupCommit (commit: (requests: HoldRequest[]) => Promise<Array<Debited | undefined>>): Debit {
  interface Waiting { request: HoldRequest, resolve (debited: Debited | undefined): void, reject (error: unknown): void }
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
 * PostgreSQL: one statement and one round trip per hold: the conditional debit, the journal row, the
 * hold's state and its link to the idempotency claim together in a data-modifying CTE. The WHERE is
 * re-checked on the locked row, so concurrent holds, from any instance, never overdraw. It is a named
 * statement, so each connection parses and plans it once. (Batching holds into one transaction was
 * measured slower here: it adds BEGIN and COMMIT round trips and holds the wallet's row lock across
 * the batch.)
 */
const HOLD_SQL = `
  WITH debited AS (
    UPDATE wallets SET balance = balance - $1
    WHERE token_hash = $2 AND currency = $3 AND frozen = 0 AND balance >= $1
    RETURNING id, balance
  ), entry AS (
    INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, created_at)
    SELECT id, 'hold', $1, $4, $5, $6, $7 FROM debited
    RETURNING id, wallet_id
  ), linked AS (
    UPDATE idempotency_keys SET hold_id = entry.id FROM entry WHERE scope = $9 AND key = $6
  )
  INSERT INTO holds (id, wallet_id, amount, state, expires_at)
  SELECT id, wallet_id, $1, 'pending', $8 FROM entry
  RETURNING id, wallet_id, (SELECT balance FROM debited) AS balance`

const expiry = (request: HoldRequest) => new Date(Date.now() + request.expiresInSeconds * 1000).toISOString()

export function postgresDebit (pool: Pool): Debit {
  return async (request) => {
    const { rows } = await pool.query<Debited>({
      name: 'apiary-hold',
      text: HOLD_SQL,
      values: [
        request.micros, request.tokenHash, request.currency, request.beeId, request.requestId,
        request.claim?.key ?? null, new Date().toISOString(), expiry(request), request.claim?.scope ?? null
      ]
    })
    return rows[0]
  }
}

/**
 * SQLite is in-process (no round trip to save) and has no UPDATE inside a CTE: the same statements,
 * prepared once, in an IMMEDIATE transaction. It runs holding Kysely's connection, so it never lands
 * inside a transaction Kysely has open on the same database handle.
 */
export function sqliteDebit (db: Kysely<Tables>, database: Database.Database): Debit {
  const debit = database.prepare<[number, string, string, number], { id: string, balance: number }>(
    'UPDATE wallets SET balance = balance - ? WHERE token_hash = ? AND currency = ? AND frozen = 0 AND balance >= ? RETURNING id, balance'
  )
  const journal = database.prepare<[string, number, string, string, string | null, string], { id: number }>(
    "INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, created_at) VALUES (?, 'hold', ?, ?, ?, ?, ?) RETURNING id"
  )
  const hold = database.prepare<[number, string, number, string]>(
    "INSERT INTO holds (id, wallet_id, amount, state, expires_at) VALUES (?, ?, ?, 'pending', ?)"
  )
  const link = database.prepare<[number, string, string]>('UPDATE idempotency_keys SET hold_id = ? WHERE scope = ? AND key = ?')
  const holdOne = (request: HoldRequest): Debited | undefined => {
    const wallet = debit.get(request.micros, request.tokenHash, request.currency, request.micros)
    if (wallet === undefined) return undefined
    const { claim } = request
    const entry = journal.get(wallet.id, request.micros, request.beeId, request.requestId, claim?.key ?? null, new Date().toISOString()) as { id: number }
    hold.run(entry.id, wallet.id, request.micros, expiry(request))
    if (claim !== null) link.run(entry.id, claim.scope, claim.key)
    return { id: entry.id, wallet_id: wallet.id, balance: wallet.balance }
  }
  const holdAll = database.transaction((requests: HoldRequest[]) => requests.map(holdOne))
  return groupCommit((requests) => db.connection().execute(async () => holdAll.immediate(requests)))
}
