import { type Kysely, type Selectable, type Transaction, sql } from 'kysely'
import { ApiError } from '../errors.js'
import { fromMicros, MICROS_PER_UNIT } from '../money.js'
import { type JournalEntry, MAX_BALANCE, type Wallet, WALLET_ID_PATTERN } from '../schemas.js'
import type { CatalogStore } from './catalog-store.js'
import { decodeCursor, decodeIdCursor, encodeCursor } from './cursors.js'
import type { Debit } from './debit.js'
import type { Dialect } from './migrations.js'
import type { ChargeOutcome, LedgerStore, Page } from './store.js'
import type { Tables } from './tables.js'

type WalletRow = Selectable<Tables['wallets']>
type JournalRow = Selectable<Tables['journal']>

const walletColumns = ['id', 'balance', 'currency', 'label', 'frozen', 'created_at'] as const
const journalColumns = ['id', 'kind', 'amount', 'bee_id', 'request_id', 'idempotency_key', 'created_at'] as const

const toWallet = (row: Pick<WalletRow, typeof walletColumns[number]>): Wallet => ({
  id: row.id,
  balance: fromMicros(Number(row.balance)),
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
    db.selectFrom('wallets').select(walletColumns).where('token_hash', '=', tokenHash).executeTakeFirst()

  /**
   * A deposit credits only while the result stays under the cap, checked by the UPDATE itself, so
   * concurrent deposits (from any instance) cannot cross it together. A refund is not capped: it
   * returns money the wallet held before, and must never fail.
   */
  const credit = (trx: Transaction<Tables>, walletId: string, micros: number, { capped }: { capped: boolean }) => {
    let update = trx.updateTable('wallets').set((eb) => ({ balance: eb('balance', '+', micros) })).where('id', '=', walletId)
    if (capped) update = update.where('balance', '<=', MAX_BALANCE_MICROS - micros)
    return update.returning(walletColumns).executeTakeFirst()
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
        }).returning(walletColumns).executeTakeFirstOrThrow()
        if (wallet.micros > 0) {
          await trx.insertInto('journal')
            .values({ wallet_id: wallet.id, kind: 'deposit', amount: wallet.micros, request_id: wallet.requestId ?? null, created_at: createdAt })
            .execute()
        }
        return toWallet(row)
      })
    },

    async getWallet (id) {
      const row = await db.selectFrom('wallets').select(walletColumns).where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : toWallet(row)
    },

    async getWalletByToken (tokenHash) {
      const row = await walletByToken(tokenHash)
      return row === undefined ? null : toWallet(row)
    },

    async listWallets ({ limit, cursor }): Promise<Page<Wallet>> {
      let query = db.selectFrom('wallets').select(walletColumns).orderBy('id').limit(limit + 1)
      const after = decodeCursor(cursor, walletIdShape)
      if (after !== undefined) query = query.where('id', '>', after)
      const { rows, nextCursor } = page(await query.execute(), limit, (row) => row.id)
      return { items: rows.map(toWallet), nextCursor }
    },

    async setFrozen (walletId, frozen) {
      const row = await db.updateTable('wallets').set({ frozen: frozen ? 1 : 0 })
        .where('id', '=', walletId).returning(walletColumns).executeTakeFirst()
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

    async charge (request): Promise<ChargeOutcome> {
      const debited = await debit(request)
      if (debited !== undefined) {
        return { ok: true, chargeId: Number(debited.id), walletId: debited.wallet_id, balanceMicros: Number(debited.balance) }
      }
      // Only a refused charge pays for a second look, to say why.
      const wallet = await walletByToken(request.tokenHash)
      if (wallet === undefined) return { ok: false, reason: 'WALLET_NOT_FOUND' }
      if (Number(wallet.frozen) === 1) return { ok: false, reason: 'WALLET_FROZEN' }
      if (wallet.currency !== request.currency) return { ok: false, reason: 'CURRENCY_MISMATCH' }
      return { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: Number(wallet.balance), currency: wallet.currency }
    },

    async refund (chargeId, requestId) {
      await db.transaction().execute(async (trx) => {
        const original = await trx.selectFrom('journal').select(['wallet_id', 'amount', 'bee_id', 'idempotency_key'])
          .where('id', '=', chargeId).where('kind', '=', 'charge').executeTakeFirst()
        if (original === undefined) return
        // The unique refund_of makes a second refund of the same charge insert nothing.
        const inserted = await trx.insertInto('journal').values({
          wallet_id: original.wallet_id,
          kind: 'refund',
          amount: original.amount,
          bee_id: original.bee_id,
          request_id: requestId,
          idempotency_key: original.idempotency_key,
          refund_of: chargeId,
          created_at: now()
        }).onConflict((oc) => oc.column('refund_of').doNothing()).returning('id').executeTakeFirst()
        if (inserted !== undefined) await credit(trx, original.wallet_id, Number(original.amount), { capped: false })
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
          eb.case().when('kind', '=', 'charge').then(eb.neg(eb.ref('amount'))).else(eb.ref('amount')).end()
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
      if (inserted !== undefined) return { state: 'claimed' }

      const existing = await db.selectFrom('idempotency_keys').selectAll()
        .where('scope', '=', scope).where('key', '=', key).executeTakeFirst()
      if (existing === undefined) return { state: 'in-flight' }
      const expired = existing.expires_at <= claimedAt
      const abandoned = existing.state === 'in-flight' && existing.locked_at <= new Date(Date.now() - leaseSeconds * 1000).toISOString()
      if (expired || abandoned) {
        // Take over only if nobody else did in between: the update matches the row as we read it.
        const taken = await db.updateTable('idempotency_keys')
          .set({ request_hash: requestHash, state: 'in-flight', response_status: null, response_body: null, locked_at: claimedAt, expires_at: later(ttlSeconds) })
          .where('scope', '=', scope).where('key', '=', key).where('locked_at', '=', existing.locked_at)
          .returning('key').executeTakeFirst()
        return taken !== undefined ? { state: 'claimed' } : { state: 'in-flight' }
      }
      if (existing.request_hash !== requestHash) return { state: 'mismatch' }
      if (existing.state === 'in-flight') return { state: 'in-flight' }
      return { state: 'replay', status: Number(existing.response_status), body: existing.response_body ?? '' }
    },

    async completeIdempotencyKey (scope, key, status, body) {
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
