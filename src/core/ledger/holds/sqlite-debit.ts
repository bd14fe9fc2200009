import type Database from 'better-sqlite3'
import type { Kysely } from 'kysely'
import { OPERATOR_ACCOUNT, saleRows } from '../earnings/split.js'
import { later } from '../timestamps.js'
import type { Tables } from '../tables.js'
import type { Debit, Debited } from './debit.js'
import { lineageOf } from '../tokens/token-repository.js'
import type { CaptureRequest, HoldOutcome, HoldRequest, TokenPayer } from './hold-repository.js'
import { tokenRefusal, type TokenRow } from './token-hold.js'
import { walletRefusal } from './wallet-refusal.js'

/** One call's part of a batch: its statements, run inside the batch's transaction, and who waits for the outcome. */
interface Waiting { run (): unknown, resolve (result: never): void, reject (error: unknown): void }

/**
 * Group commit: the holds and captures that arrive in one turn of the event loop are written in one transaction,
 * each with its own conditional UPDATE (so none can overdraw or settle a hold twice), and answered only once it
 * has committed. One commit then serves many calls, and holds and captures share it: each commit writes its
 * pages to the WAL (a write per page), and the calls of a batch touch the same wallet, journal and hold pages,
 * so one commit for both halves writes about half the pages two would (docs/performance.md). If the transaction
 * fails, none of the batch was written.
 */
function groupCommit (commit: (runs: Waiting[]) => Promise<unknown[]>): <R, D>(one: (request: R) => D) => (request: R) => Promise<D> {
  let waiting: Waiting[] = []
  const flush = async () => {
    const batch = waiting
    waiting = []
    try {
      const results = await commit(batch)
      batch.forEach((entry, i) => { entry.resolve(results[i] as never) })
    } catch (error) {
      for (const entry of batch) entry.reject(error)
    }
  }
  return <R, D>(one: (request: R) => D) => (request: R) => new Promise<D>((resolve, reject) => {
    waiting.push({ run: () => one(request), resolve: resolve as (result: never) => void, reject })
    // After this turn's I/O, so the calls that arrived together share the batch.
    if (waiting.length === 1) setImmediate(flush)
  })
}

/**
 * SQLite is in-process (no round trip to save) and has no UPDATE inside a CTE: the same statements,
 * prepared once, group-committed together in IMMEDIATE transactions (token holds and captures too: the batch's transaction
 * has the database to itself, so a token's caps are checked and spent with nothing in between). They run holding Kysely's connection, so
 * they never land inside a transaction Kysely has open on the same database handle.
 */
export function sqliteDebit (db: Kysely<Tables>, database: Database.Database, feeBps: number): Debit {
  const debit = database.prepare<[number, string, string, number], { id: string, balance: number }>(
    'UPDATE wallets SET balance = balance - ? WHERE token_hash = ? AND currency = ? AND frozen = 0 AND balance >= ? RETURNING id, balance'
  )
  const journal = database.prepare<[string, number, string, string, string | null, string], { id: number }>(
    "INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, created_at) VALUES (?, 'hold', ?, ?, ?, ?, ?) RETURNING id"
  )
  const pending = database.prepare<[number, string, number, string, string]>(
    "INSERT INTO holds (id, wallet_id, amount, state, expires_at, payee) VALUES (?, ?, ?, 'pending', ?, ?)"
  )
  const link = database.prepare<[number, string, string]>('UPDATE idempotency_keys SET hold_id = ? WHERE scope = ? AND key = ?')
  const tokenPending = database.prepare<[number, string, number, string, string, string]>(
    "INSERT INTO holds (id, wallet_id, amount, state, expires_at, payee, token_id) VALUES (?, ?, ?, 'pending', ?, ?, ?)"
  )
  /** Journals a hold whose wallet was just debited, and links it to its claim. */
  const journaled = (request: HoldRequest, wallet: { id: string, balance: number }, tokenId: string | null): Debited => {
    const { claim } = request
    const entry = journal.get(wallet.id, request.micros, request.beeId, request.requestId, claim?.key ?? null, new Date().toISOString()) as { id: number }
    const expiresAt = later(request.expiresInSeconds)
    const payee = request.payee ?? OPERATOR_ACCOUNT
    if (tokenId === null) pending.run(entry.id, wallet.id, request.micros, expiresAt, payee)
    else tokenPending.run(entry.id, wallet.id, request.micros, expiresAt, payee, tokenId)
    if (claim !== null) link.run(entry.id, claim.scope, claim.key)
    return { id: entry.id, wallet_id: wallet.id, balance: wallet.balance }
  }
  const holdOne = (request: HoldRequest): Debited | undefined => {
    const wallet = debit.get(request.micros, request.tokenHash, request.currency, request.micros)
    return wallet === undefined ? undefined : journaled(request, wallet, null)
  }

  const tokenPath = database.prepare<[string], { path: string, wallet_id: string }>('SELECT path, wallet_id FROM wallet_tokens WHERE id = ?')
  const lineage = database.prepare<[string], TokenRow>('SELECT * FROM wallet_tokens WHERE id IN (SELECT value FROM json_each(?))')
  const debitById = database.prepare<[number, string, string, number], { id: string, balance: number }>(
    'UPDATE wallets SET balance = balance - ? WHERE id = ? AND currency = ? AND frozen = 0 AND balance >= ? RETURNING id, balance'
  )
  const spend = database.prepare<[number, string]>('UPDATE wallet_tokens SET spent = spent + ? WHERE id IN (SELECT value FROM json_each(?))')
  const walletOf = database.prepare<[string], { balance: number, currency: string, frozen: number }>('SELECT balance, currency, frozen FROM wallets WHERE id = ?')
  // Checked, then debited, then spent: each step only once the one before it passed, so a refusal writes nothing.
  const tokenHoldOne = ({ request, payer }: { request: HoldRequest, payer: TokenPayer }): HoldOutcome => {
    const own = tokenPath.get(payer.id)
    if (own === undefined) return { ok: false, reason: 'TOKEN_NOT_FOUND' }
    const ids = JSON.stringify(lineageOf(own.path))
    const refused = tokenRefusal(lineage.all(ids), request, payer, new Date().toISOString())
    if (refused !== null) return refused
    const wallet = debitById.get(request.micros, own.wallet_id, request.currency, request.micros)
    if (wallet === undefined) return walletRefusal(walletOf.get(own.wallet_id), request.currency)
    spend.run(request.micros, ids)
    const held = journaled(request, wallet, payer.id)
    return { ok: true, holdId: held.id, walletId: held.wallet_id, balanceMicros: held.balance }
  }

  const settle = database.prepare<[number], { amount: number, payee: string, currency: string }>(
    "UPDATE holds SET state = 'captured' WHERE id = ? AND state = 'pending' RETURNING amount, payee, (SELECT currency FROM wallets WHERE wallets.id = holds.wallet_id) AS currency"
  )
  const captured = database.prepare<[string, string, number], { bee_id: string | null }>(
    "INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, hold_id, created_at) SELECT wallet_id, 'capture', amount, bee_id, ?, idempotency_key, id, ? FROM journal WHERE id = ? RETURNING bee_id"
  )
  const earned = database.prepare<[string, string, string, number, number, string | null, number, string, string]>(
    'INSERT INTO earnings (account, currency, kind, amount, fee, bee_id, hold_id, request_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'
  )
  const complete = database.prepare<[number, string, string, string]>(
    "UPDATE idempotency_keys SET state = 'done', response_status = ?, response_body = ? WHERE scope = ? AND key = ?"
  )
  const captureOne = ({ holdId, requestId, completion }: CaptureRequest): boolean => {
    const hold = settle.get(holdId)
    if (hold === undefined) return false
    const at = new Date().toISOString()
    const { bee_id: beeId } = captured.get(requestId, at, holdId) as { bee_id: string | null }
    for (const row of saleRows(hold.payee, hold.amount, feeBps, 'sale')) {
      earned.run(row.account, hold.currency, row.kind, row.amount, row.fee, beeId, holdId, requestId, at)
    }
    if (completion !== null) complete.run(completion.status, completion.body, completion.scope, completion.key)
    return true
  }

  const all = database.transaction((batch: Waiting[]) => batch.map((entry) => entry.run()))
  const inBatch = groupCommit((batch) => db.connection().execute(async () => all.immediate(batch)))
  const tokenHold = inBatch(tokenHoldOne)
  return { hold: inBatch(holdOne), holdWithToken: (request, payer) => tokenHold({ request, payer }), capture: inBatch(captureOne) }
}
