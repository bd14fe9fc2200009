import type Database from 'better-sqlite3'
import type { Kysely } from 'kysely'
import type { Pool } from 'pg'
import type { CaptureRequest, HoldRequest } from './store.js'
import type { Tables } from './tables.js'

export interface Debited { id: number, wallet_id: string, balance: number }

/** The two statements every paid call runs, and the ones the dialects force apart. */
export interface Debit {
  /**
   * Takes the price from the wallet, journals the hold, records its state and links it to the
   * idempotency claim, atomically, or returns undefined when the wallet cannot pay.
   */
  hold (request: HoldRequest): Promise<Debited | undefined>
  /**
   * Captures the hold if it is still pending (a journal row naming it) and, with a completion, stores
   * the answer for replay, atomically; false when the hold was already settled.
   */
  capture (request: CaptureRequest): Promise<boolean>
}

/**
 * Group commit: the calls that arrive in one turn of the event loop are written in one transaction,
 * each with its own conditional UPDATE (so none can overdraw or settle a hold twice), and answered only
 * once it has committed. One commit then serves many calls; if the transaction fails, none of the batch
 * was written.
 */
function groupCommit<R, D> (commit: (requests: R[]) => Promise<D[]>): (request: R) => Promise<D> {
  interface Waiting { request: R, resolve (result: D): void, reject (error: unknown): void }
  let waiting: Waiting[] = []
  const flush = async () => {
    const batch = waiting
    waiting = []
    try {
      const results = await commit(batch.map((entry) => entry.request))
      batch.forEach((entry, i) => entry.resolve(results[i] as D))
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

/** The capture the same way: settle only a pending hold, journal it, store the answer, in one statement. */
const CAPTURE_SQL = `
  WITH settled AS (
    UPDATE holds SET state = 'captured' WHERE id = $1 AND state = 'pending' RETURNING id
  ), entry AS (
    INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, hold_id, created_at)
    SELECT hold.wallet_id, 'capture', hold.amount, hold.bee_id, $2, hold.idempotency_key, hold.id, $3
    FROM journal hold JOIN settled ON settled.id = hold.id
    RETURNING id
  ), completed AS (
    UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5
    WHERE scope = $6 AND key = $7 AND EXISTS (SELECT 1 FROM entry)
  )
  SELECT id FROM entry`

const expiry = (request: HoldRequest) => new Date(Date.now() + request.expiresInSeconds * 1000).toISOString()

export function postgresDebit (pool: Pool): Debit {
  return {
    async hold (request) {
      const { rows } = await pool.query<Debited>({
        name: 'apiary-hold',
        text: HOLD_SQL,
        values: [
          request.micros, request.tokenHash, request.currency, request.beeId, request.requestId,
          request.claim?.key ?? null, new Date().toISOString(), expiry(request), request.claim?.scope ?? null
        ]
      })
      return rows[0]
    },
    async capture ({ holdId, requestId, completion }) {
      const { rows } = await pool.query({
        name: 'apiary-capture',
        text: CAPTURE_SQL,
        values: [
          holdId, requestId, new Date().toISOString(),
          completion?.status ?? null, completion?.body ?? null, completion?.scope ?? null, completion?.key ?? null
        ]
      })
      return rows.length === 1
    }
  }
}

/**
 * SQLite is in-process (no round trip to save) and has no UPDATE inside a CTE: the same statements,
 * prepared once, group-committed in IMMEDIATE transactions. They run holding Kysely's connection, so
 * they never land inside a transaction Kysely has open on the same database handle.
 */
export function sqliteDebit (db: Kysely<Tables>, database: Database.Database): Debit {
  const debit = database.prepare<[number, string, string, number], { id: string, balance: number }>(
    'UPDATE wallets SET balance = balance - ? WHERE token_hash = ? AND currency = ? AND frozen = 0 AND balance >= ? RETURNING id, balance'
  )
  const journal = database.prepare<[string, number, string, string, string | null, string], { id: number }>(
    "INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, created_at) VALUES (?, 'hold', ?, ?, ?, ?, ?) RETURNING id"
  )
  const pending = database.prepare<[number, string, number, string]>(
    "INSERT INTO holds (id, wallet_id, amount, state, expires_at) VALUES (?, ?, ?, 'pending', ?)"
  )
  const link = database.prepare<[number, string, string]>('UPDATE idempotency_keys SET hold_id = ? WHERE scope = ? AND key = ?')
  const holdOne = (request: HoldRequest): Debited | undefined => {
    const wallet = debit.get(request.micros, request.tokenHash, request.currency, request.micros)
    if (wallet === undefined) return undefined
    const { claim } = request
    const entry = journal.get(wallet.id, request.micros, request.beeId, request.requestId, claim?.key ?? null, new Date().toISOString()) as { id: number }
    pending.run(entry.id, wallet.id, request.micros, expiry(request))
    if (claim !== null) link.run(entry.id, claim.scope, claim.key)
    return { id: entry.id, wallet_id: wallet.id, balance: wallet.balance }
  }

  const settle = database.prepare<[number]>("UPDATE holds SET state = 'captured' WHERE id = ? AND state = 'pending'")
  const captured = database.prepare<[string, string, number]>(
    "INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, hold_id, created_at) SELECT wallet_id, 'capture', amount, bee_id, ?, idempotency_key, id, ? FROM journal WHERE id = ?"
  )
  const complete = database.prepare<[number, string, string, string]>(
    "UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE scope = ? AND key = ?"
  )
  const captureOne = ({ holdId, requestId, completion }: CaptureRequest): boolean => {
    if (settle.run(holdId).changes === 0) return false
    captured.run(requestId, new Date().toISOString(), holdId)
    if (completion !== null) complete.run(completion.status, completion.body, completion.scope, completion.key)
    return true
  }

  const inBatch = <R, D>(one: (request: R) => D) => {
    const all = database.transaction((requests: R[]) => requests.map(one))
    return groupCommit((requests: R[]) => db.connection().execute(async () => all.immediate(requests)))
  }
  return { hold: inBatch(holdOne), capture: inBatch(captureOne) }
}
