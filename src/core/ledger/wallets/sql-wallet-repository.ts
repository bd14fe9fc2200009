import type { Kysely } from 'kysely'
import { MICROS_PER_UNIT } from '../../money.js'
import { MAX_BALANCE, WALLET_ID_PATTERN } from '../../schemas.js'
import { decodeCursor } from '../cursors.js'
import { INVALID_CURSOR, page } from '../paging.js'
import { toWallet, walletView } from '../rows.js'
import { now } from '../timestamps.js'
import type { Tables } from '../tables.js'
import type { WalletRepository } from './wallet-repository.js'

const walletIdShape = new RegExp(WALLET_ID_PATTERN)

/** The cap on a balance (see MAX_BALANCE), in micro-units: 9e15, below 2^53. */
const MAX_BALANCE_MICROS = MAX_BALANCE * MICROS_PER_UNIT

const BALANCE_LIMIT_EXCEEDED = { ok: false, reason: 'BALANCE_LIMIT_EXCEEDED' } as const

/** Wallets over Kysely: the same queries serve SQLite and PostgreSQL. */
export function sqlWalletRepository (db: Kysely<Tables>): WalletRepository {
  return {
    async create (wallet) {
      if (wallet.micros > MAX_BALANCE_MICROS) return BALANCE_LIMIT_EXCEEDED
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
        return { ok: true, wallet: toWallet(row) }
      })
    },

    async get (id) {
      const row = await db.selectFrom('wallets').select(walletView).where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : toWallet(row)
    },

    async getByToken (tokenHash) {
      const row = await db.selectFrom('wallets').select(walletView).where('token_hash', '=', tokenHash).executeTakeFirst()
      return row === undefined ? null : toWallet(row)
    },

    async idByToken (tokenHash) {
      const row = await db.selectFrom('wallets').select('id').where('token_hash', '=', tokenHash).executeTakeFirst()
      return row?.id ?? null
    },

    async list ({ limit, cursor }) {
      const after = cursor === undefined ? undefined : decodeCursor(cursor, walletIdShape)
      if (after === null) return INVALID_CURSOR
      let query = db.selectFrom('wallets').select(walletView).orderBy('id').limit(limit + 1)
      if (after !== undefined) query = query.where('id', '>', after)
      return page(await query.execute(), limit, (row) => row.id, toWallet)
    },

    async setFrozen (walletId, frozen) {
      const row = await db.updateTable('wallets').set({ frozen: frozen ? 1 : 0 })
        .where('id', '=', walletId).returning(walletView).executeTakeFirst()
      return row === undefined ? null : toWallet(row)
    },

    async deposit (walletId, micros, requestId) {
      return await db.transaction().execute(async (trx) => {
        // The UPDATE itself checks the cap, so concurrent deposits (from any instance) cannot cross it together.
        const credited = await trx.updateTable('wallets').set((eb) => ({ balance: eb('balance', '+', micros) }))
          .where('id', '=', walletId).where('balance', '<=', MAX_BALANCE_MICROS - micros)
          .returning(walletView).executeTakeFirst()
        if (credited === undefined) {
          // Refused: the wallet is missing, or the deposit would cross the cap.
          const exists = await trx.selectFrom('wallets').select('id').where('id', '=', walletId).executeTakeFirst()
          return exists === undefined ? { ok: false, reason: 'WALLET_NOT_FOUND' } : BALANCE_LIMIT_EXCEEDED
        }
        await trx.insertInto('journal')
          .values({ wallet_id: walletId, kind: 'deposit', amount: micros, request_id: requestId, created_at: now() })
          .execute()
        return { ok: true, wallet: toWallet(credited) }
      })
    }
  }
}
