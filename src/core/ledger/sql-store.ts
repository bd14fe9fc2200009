import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely'
import { ApiError } from '../errors.js'
import { fromMicros, MICROS_PER_UNIT } from '../money.js'
import { type JournalEntry, MAX_BALANCE, type Wallet, WALLET_ID_PATTERN } from '../schemas.js'
import type { CatalogStore } from './catalog-store.js'
import { decodeCursor, decodeIdCursor, encodeCursor } from './cursors.js'
import type { Debit } from './debit.js'
import type { Dialect } from './migrations.js'
import type { HoldOutcome, LedgerStore, Page } from './store.js'
import type { Tables } from './tables.js'

type WalletRow = Selectable<Tables['wallets']>
type JournalRow = Selectable<Tables['journal']>

const walletColumns = ['id', 'balance', 'currency', 'label', 'frozen', 'created_at'] as const
const journalColumns = ['id', 'kind', 'amount', 'bee_id', 'request_id', 'idempotency_key', 'hold_id', 'created_at'] as const

/** What the wallet's pending holds reserve: a subquery, so it can sit in a SELECT or a RETURNING. */
const heldMicros = (eb: ExpressionBuilder<Tables, 'wallets'>) => eb.selectFrom('holds')
  .select((hb) => hb.fn.coalesce(hb.fn.sum<number>('holds.amount'), hb.lit(0)).as('held'))
  .whereRef('holds.wallet_id', '=', 'wallets.id').where('holds.state', '=', 'pending')
  .as('held')
const walletView = (eb: ExpressionBuilder<Tables, 'wallets'>) => [...walletColumns, heldMicros(eb)] as const

const toWallet = (row: Pick<WalletRow, typeof walletColumns[number]> & { held: number | null }): Wallet => ({
  id: row.id,
  balance: fromMicros(Number(row.balance)),
  held: fromMicros(Number(row.held ?? 0)),
  currency: row.currency,
  label: row.label,
  frozen: Number(row.frozen) === 1,
  createdAt: row.created_at
})

const toEntry = (row: Pick<JournalRow, typeof journalColumns[number]>): JournalEntry => ({
  id: Number(row.id),
  kind: row.kind,
  amount: fromMicros(Number(row.amount)),
  beeId: row.bee_id,
  requestId: row.request_id,
  idempotencyKey: row.idempotency_key,
  holdId: row.hold_id === null ? null : Number(row.hold_id),
  createdAt: row.created_at
})

const now = () => new Date().toISOString()
const later = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString()

const walletIdShape = new RegExp(WALLET_ID_PATTERN)

/** The cap on a balance (see MAX_BALANCE), in micro-units: 9e15, below 2^53. */
const MAX_BALANCE_MICROS = MAX_BALANCE * MICROS_PER_UNIT

function balanceLimit (): ApiError {
  return new ApiError(400, 'BALANCE_LIMIT_EXCEEDED',
    `A wallet holds at most ${MAX_BALANCE.toLocaleString('en-US')} of its currency: this would take its balance above that.`)
}

function page<T> (rows: T[], limit: number, keyOf: (row: T) => string | number): { rows: T[], nextCursor: string | null } {
  const more = rows.length > limit
  const kept = more ? rows.slice(0, limit) : rows
  const last = kept[kept.length - 1]
  return { rows: kept, nextCursor: more && last !== undefined ? encodeCursor(keyOf(last)) : null }
}

/** The ledger over Kysely: the same queries on SQLite and PostgreSQL. */
export function createSqlStore (db: Kysely<Tables>, dialect: Dialect, debit: Debit, close: () => Promise<void>, catalog: CatalogStore): LedgerStore {
  const walletByToken = (tokenHash: string) =>
    db.selectFrom('wallets').select(walletView).where('token_hash', '=', tokenHash).executeTakeFirst()

  /**
   * A deposit credits only while the result stays under the cap, checked by the UPDATE itself, so
   * concurrent deposits (from any instance) cannot cross it together. A refund is not capped: it
   * returns money the wallet held before, and must never fail.
   */
  const credit = (trx: Kysely<Tables>, walletId: string, micros: number, { capped }: { capped: boolean }) => {
    let update = trx.updateTable('wallets').set((eb) => ({ balance: eb('balance', '+', micros) })).where('id', '=', walletId)
    if (capped) update = update.where('balance', '<=', MAX_BALANCE_MICROS - micros)
    return update.returning(walletView).executeTakeFirst()
  }

  /**
   * A transaction that writes from its start. On SQLite, BEGIN IMMEDIATE takes the write lock first:
   * a deferred transaction that reads and then writes fails at once with SQLITE_BUSY when another
   * connection (a second process: the wallet CLI) writes in between, instead of waiting its turn.
   */
  const writing = async <T>(work: (trx: Kysely<Tables>) => Promise<T>): Promise<T> => {
    if (dialect === 'postgres') return await db.transaction().execute(work)
    return await db.connection().execute(async (connection) => {
      await sql`BEGIN IMMEDIATE`.execute(connection)
      try {
        const result = await work(connection)
        await sql`COMMIT`.execute(connection)
        return result
      } catch (error) {
        await sql`ROLLBACK`.execute(connection)
        throw error
      }
    })
  }

  /**
   * Voids a hold if, and only if, it is still pending: the conditional UPDATE on its state (here and in
   * the capture) is what lets a capture, a void on failure and any number of sweepers race with exactly
   * one winner. The void row names the hold (unique), the second guard.
   */
  const voidPending = async (trx: Kysely<Tables>, holdId: number, requestId: string | null) => {
    const hold = await trx.updateTable('holds').set({ state: 'voided' }).where('id', '=', holdId).where('state', '=', 'pending')
      .returning(['wallet_id', 'amount']).executeTakeFirst()
    if (hold === undefined) return false
    const entry = await trx.selectFrom('journal').select(['bee_id', 'idempotency_key']).where('id', '=', holdId).executeTakeFirstOrThrow()
    await trx.insertInto('journal').values({
      wallet_id: hold.wallet_id,
      kind: 'void',
      amount: hold.amount,
      bee_id: entry.bee_id,
      request_id: requestId,
      idempotency_key: entry.idempotency_key,
      hold_id: holdId,
      created_at: now()
    }).execute()
    // A void returns money the wallet held before: never capped, never refused.
    await credit(trx, hold.wallet_id, Number(hold.amount), { capped: false })
    return true
  }

  return {
    dialect,
    catalog,

    async createWallet (wallet) {
      if (wallet.micros > MAX_BALANCE_MICROS) throw balanceLimit()
      return await db.transaction().execute(async (trx) => {
        const createdAt = now()
        const row = await trx.insertInto('wallets').values({
          id: wallet.id,
          token_hash: wallet.tokenHash,
          balance: wallet.micros,
          currency: wallet.currency,
          label: wallet.label,
          frozen: 0,
          created_at: createdAt
        }).returning(walletView).executeTakeFirstOrThrow()
        if (wallet.micros > 0) {
          await trx.insertInto('journal')
            .values({ wallet_id: wallet.id, kind: 'deposit', amount: wallet.micros, request_id: wallet.requestId ?? null, created_at: createdAt })
            .execute()
        }
        return toWallet(row)
      })
    },

    async getWallet (id) {
      const row = await db.selectFrom('wallets').select(walletView).where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : toWallet(row)
    },

    async getWalletByToken (tokenHash) {
      const row = await walletByToken(tokenHash)
      return row === undefined ? null : toWallet(row)
    },

    async listWallets ({ limit, cursor }): Promise<Page<Wallet>> {
      let query = db.selectFrom('wallets').select(walletView).orderBy('id').limit(limit + 1)
      const after = decodeCursor(cursor, walletIdShape)
      if (after !== undefined) query = query.where('id', '>', after)
      const { rows, nextCursor } = page(await query.execute(), limit, (row) => row.id)
      return { items: rows.map(toWallet), nextCursor }
    },

    async setFrozen (walletId, frozen) {
      const row = await db.updateTable('wallets').set({ frozen: frozen ? 1 : 0 })
        .where('id', '=', walletId).returning(walletView).executeTakeFirst()
      return row === undefined ? null : toWallet(row)
    },

    async deposit (walletId, micros, requestId) {
      const row = await db.transaction().execute(async (trx) => {
        const credited = await credit(trx, walletId, micros, { capped: true })
        if (credited === undefined) {
          // Refused: the wallet is missing, or the deposit would cross the cap.
          const exists = await trx.selectFrom('wallets').select('id').where('id', '=', walletId).executeTakeFirst()
          if (exists === undefined) return undefined
          throw balanceLimit()
        }
        await trx.insertInto('journal')
          .values({ wallet_id: walletId, kind: 'deposit', amount: micros, request_id: requestId, created_at: now() })
          .execute()
        return credited
      })
      return row === undefined ? null : toWallet(row)
    },

    async placeHold (request): Promise<HoldOutcome> {
      const debited = await debit.hold(request)
      if (debited !== undefined) {
        return { ok: true, holdId: Number(debited.id), walletId: debited.wallet_id, balanceMicros: Number(debited.balance) }
      }
      // Only a refused hold pays for a second look, to say why.
      const wallet = await walletByToken(request.tokenHash)
      if (wallet === undefined) return { ok: false, reason: 'WALLET_NOT_FOUND' }
      if (Number(wallet.frozen) === 1) return { ok: false, reason: 'WALLET_FROZEN' }
      if (wallet.currency !== request.currency) return { ok: false, reason: 'CURRENCY_MISMATCH' }
      return { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: Number(wallet.balance), currency: wallet.currency }
    },

    async renewHold (holdId, expiresInSeconds) {
      const hold = await db.updateTable('holds').set({ expires_at: later(expiresInSeconds) })
        .where('id', '=', holdId).where('state', '=', 'pending').returning(['wallet_id', 'amount']).executeTakeFirst()
      if (hold === undefined) return null
      const wallet = await db.selectFrom('wallets').select('balance').where('id', '=', hold.wallet_id).executeTakeFirstOrThrow()
      return { walletId: hold.wallet_id, micros: Number(hold.amount), balanceMicros: Number(wallet.balance) }
    },

    async captureHold (holdId, requestId, completion) {
      return await debit.capture({ holdId, requestId, completion })
    },

    async voidHold (holdId, requestId) {
      return await writing((trx) => voidPending(trx, holdId, requestId))
    },

    async voidExpiredHolds (limit) {
      return await writing(async (trx) => {
        let expired = trx.selectFrom('holds').select(['id', 'wallet_id'])
          .where('state', '=', 'pending').where('expires_at', '<=', now()).orderBy('expires_at').limit(limit)
        // Sweepers on other instances skip the rows this one has locked instead of queueing behind them.
        if (dialect === 'postgres') expired = expired.forUpdate().skipLocked()
        const rows = await expired.execute()
        // Wallets are credited in one order everywhere, so two sweepers never wait on each other in a cycle.
        rows.sort((a, b) => a.wallet_id < b.wallet_id ? -1 : a.wallet_id > b.wallet_id ? 1 : Number(a.id) - Number(b.id))
        let voided = 0
        for (const row of rows) if (await voidPending(trx, Number(row.id), null)) voided++
        return voided
      })
    },

    async journal (walletId, { limit, cursor }): Promise<Page<JournalEntry>> {
      let query = db.selectFrom('journal').select(journalColumns)
        .where('wallet_id', '=', walletId).orderBy('id', 'desc').limit(limit + 1)
      const before = decodeIdCursor(cursor)
      if (before !== undefined) query = query.where('id', '<', before)
      const { rows, nextCursor } = page(await query.execute(), limit, (row) => row.id)
      return { items: rows.map(toEntry), nextCursor }
    },

    async audit (walletId) {
      const wallet = await db.selectFrom('wallets').select('balance').where('id', '=', walletId).executeTakeFirst()
      if (wallet === undefined) return null
      const sums = await db.selectFrom('journal')
        .select((eb) => eb.fn.coalesce(eb.fn.sum<number>(
          eb.case()
            .when('kind', 'in', ['hold', 'charge']).then(eb.neg(eb.ref('amount')))
            .when('kind', '=', 'capture').then(eb.lit(0))
            .else(eb.ref('amount')).end()
        ), eb.lit(0)).as('total'))
        .where('wallet_id', '=', walletId)
        .executeTakeFirstOrThrow()
      return { balanceMicros: Number(wallet.balance), journalMicros: Number(sums.total) }
    },

    async claimIdempotencyKey ({ scope, key, requestHash, ttlSeconds, leaseSeconds }) {
      const claimedAt = now()
      const inserted = await db.insertInto('idempotency_keys').values({
        scope, key, request_hash: requestHash, state: 'in-flight', locked_at: claimedAt, expires_at: later(ttlSeconds)
      }).onConflict((oc) => oc.columns(['scope', 'key']).doNothing()).returning('key').executeTakeFirst()
      if (inserted !== undefined) return { state: 'claimed', holdId: null }

      const existing = await db.selectFrom('idempotency_keys').selectAll()
        .where('scope', '=', scope).where('key', '=', key).executeTakeFirst()
      if (existing === undefined) return { state: 'in-flight' }
      const expired = existing.expires_at <= claimedAt
      const sameRequest = existing.request_hash === requestHash
      // Only the same request takes over an abandoned claim: it inherits the claim's hold, priced for that request.
      const abandoned = sameRequest && existing.state === 'in-flight' &&
        existing.locked_at <= new Date(Date.now() - leaseSeconds * 1000).toISOString()
      if (expired || abandoned) {
        // Take over only if nobody else did in between: the update matches the row as we read it.
        const taken = await db.updateTable('idempotency_keys')
          .set({
            request_hash: requestHash,
            state: 'in-flight',
            response_status: null,
            response_body: null,
            locked_at: claimedAt,
            expires_at: later(ttlSeconds),
            hold_id: expired ? null : existing.hold_id
          })
          .where('scope', '=', scope).where('key', '=', key).where('locked_at', '=', existing.locked_at)
          .returning('hold_id').executeTakeFirst()
        if (taken === undefined) return { state: 'in-flight' }
        return { state: 'claimed', holdId: taken.hold_id === null ? null : Number(taken.hold_id) }
      }
      if (!sameRequest) return { state: 'mismatch' }
      if (existing.state === 'in-flight') return { state: 'in-flight' }
      return { state: 'replay', status: Number(existing.response_status), body: existing.response_body ?? '' }
    },

    async completeIdempotencyKey ({ scope, key, status, body }) {
      await db.updateTable('idempotency_keys').set({ state: 'done', response_status: status, response_body: body })
        .where('scope', '=', scope).where('key', '=', key).execute()
    },

    async releaseIdempotencyKey (scope, key) {
      await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key)
        .where('state', '=', 'in-flight').execute()
    },

    async purgeExpiredIdempotencyKeys () {
      const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now()).executeTakeFirst()
      return Number(result.numDeletedRows)
    },

    async ping () {
      await sql`SELECT 1`.execute(db)
    },

    close
  }
}
