import type { Kysely } from 'kysely'
import type { Dialect } from '../dialect.js'
import { later, now } from '../timestamps.js'
import type { Tables } from '../tables.js'
import { writeTransaction } from '../write-transaction.js'
import type { Debit } from './debit.js'
import type { HoldRepository } from './hold-repository.js'
import { giveBack, lineages, lockTokens } from './token-hold.js'
import { walletRefusal } from './wallet-refusal.js'

/**
 * Holds over Kysely for both databases. What the dialects force apart (the debit and capture every
 * paid call runs) comes in as `debit`; the rest differs only in how a write transaction starts and
 * in PostgreSQL's SKIP LOCKED for the sweep.
 */
export function sqlHoldRepository (db: Kysely<Tables>, dialect: Dialect, debit: Debit): HoldRepository {
  const writing = writeTransaction(db, dialect)

  /**
   * Voids a hold if, and only if, it is still pending: the conditional UPDATE on its state (here and in
   * the capture) is what lets a capture, a void on failure and any number of sweepers race with exactly
   * one winner. The void row names the hold (unique), the second guard.
   */
  const voidPending = async (trx: Kysely<Tables>, holdId: number, requestId: string | null) => {
    const hold = await trx.updateTable('holds').set({ state: 'voided' }).where('id', '=', holdId).where('state', '=', 'pending')
      .returning(['wallet_id', 'amount', 'token_id']).executeTakeFirst()
    if (hold === undefined) return false
    // Tokens before the wallet: the lock order of every token hold.
    if (hold.token_id !== null) await giveBack(trx, dialect, hold.token_id, Number(hold.amount))
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
    // A void returns money the wallet held before: never capped (unlike a deposit), never refused.
    await trx.updateTable('wallets').set((eb) => ({ balance: eb('balance', '+', Number(hold.amount)) }))
      .where('id', '=', hold.wallet_id).execute()
    return true
  }

  return {
    async place (request) {
      if (request.token !== undefined) return await debit.holdWithToken(request, request.token)
      const debited = await debit.hold(request)
      if (debited !== undefined) {
        return { ok: true, holdId: Number(debited.id), walletId: debited.wallet_id, balanceMicros: Number(debited.balance) }
      }
      // Only a refused hold pays for a second look, to say why.
      const wallet = await db.selectFrom('wallets').select(['balance', 'currency', 'frozen'])
        .where('token_hash', '=', request.tokenHash).executeTakeFirst()
      return walletRefusal(wallet, request.currency)
    },

    async renew (holdId, expiresInSeconds) {
      const hold = await db.updateTable('holds').set({ expires_at: later(expiresInSeconds) })
        .where('id', '=', holdId).where('state', '=', 'pending').returning(['wallet_id', 'amount']).executeTakeFirst()
      if (hold === undefined) return null
      const wallet = await db.selectFrom('wallets').select('balance').where('id', '=', hold.wallet_id).executeTakeFirstOrThrow()
      return { walletId: hold.wallet_id, micros: Number(hold.amount), balanceMicros: Number(wallet.balance) }
    },

    async capture (holdId, requestId, completion) {
      return await debit.capture({ holdId, requestId, completion })
    },

    async void (holdId, requestId) {
      return await writing((trx) => voidPending(trx, holdId, requestId))
    },

    async voidExpired (limit) {
      return await writing(async (trx) => {
        let expired = trx.selectFrom('holds').select(['id', 'wallet_id', 'token_id'])
          .where('state', '=', 'pending').where('expires_at', '<=', now()).orderBy('expires_at').limit(limit)
        // Sweepers on other instances skip the rows this one has locked instead of queueing behind them.
        if (dialect === 'postgres') expired = expired.forUpdate().skipLocked()
        const rows = await expired.execute()
        // The tokens whose spend comes back are locked first, in id order, as every token hold locks them.
        await lockTokens(trx, dialect, await lineages(trx, rows.flatMap((row) => row.token_id ?? [])))
        // Wallets are credited in one order everywhere, so two sweepers never wait on each other in a cycle.
        rows.sort((a, b) => a.wallet_id < b.wallet_id ? -1 : a.wallet_id > b.wallet_id ? 1 : Number(a.id) - Number(b.id))
        let voided = 0
        for (const row of rows) if (await voidPending(trx, Number(row.id), null)) voided++
        return voided
      })
    }
  }
}
