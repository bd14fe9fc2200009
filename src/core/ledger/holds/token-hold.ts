import type { Kysely, Selectable } from 'kysely'
import type { Dialect } from '../migrations.js'
import type { Tables } from '../tables.js'
import { OPERATOR_ACCOUNT } from '../earnings/split.js'
import { later, now } from '../timestamps.js'
import { lineageOf } from '../tokens/token-repository.js'
import type { WriteTransaction } from '../write-transaction.js'
import type { HoldOutcome, HoldRequest, TokenHoldRefusal, TokenPayer } from './hold-repository.js'
import { walletRefusal } from './wallet-refusal.js'

type TokenRow = Selectable<Tables['wallet_tokens']>

/**
 * Locks the rows of these tokens in id order (PostgreSQL; SQLite's writer already has the database to
 * itself). Every transaction that writes tokens and wallets locks its tokens first, by id, then the
 * wallet, so a token hold, a void and a sweep never wait on each other in a cycle.
 */
export async function lockTokens (trx: Kysely<Tables>, dialect: Dialect, ids: string[]): Promise<TokenRow[]> {
  if (ids.length === 0) return []
  let query = trx.selectFrom('wallet_tokens').selectAll().where('id', 'in', [...new Set(ids)]).orderBy('id')
  if (dialect === 'postgres') query = query.forUpdate()
  return await query.execute()
}

/** The ids of every token whose spend a hold paid by `tokenIds` moved: each token and its ancestors. */
export async function lineages (trx: Kysely<Tables>, tokenIds: string[]): Promise<string[]> {
  if (tokenIds.length === 0) return []
  const rows = await trx.selectFrom('wallet_tokens').select('path').where('id', 'in', [...new Set(tokenIds)]).execute()
  return rows.flatMap((row) => lineageOf(row.path))
}

/** Gives a voided hold's amount back to the token that paid and to each of its ancestors, locked in id order first. */
export async function giveBack (trx: Kysely<Tables>, dialect: Dialect, tokenId: string, micros: number): Promise<void> {
  const ids = await lineages(trx, [tokenId])
  await lockTokens(trx, dialect, ids)
  await trx.updateTable('wallet_tokens').set((eb) => ({ spent: eb('spent', '-', micros) })).where('id', 'in', ids).execute()
}

const allows = (row: TokenRow, payer: TokenPayer, beeId: string) =>
  (row.bees === null && row.categories === null) ||
  (JSON.parse(row.bees ?? '[]') as string[]).includes(beeId) ||
  (JSON.parse(row.categories ?? '[]') as string[]).includes(payer.category)

/**
 * The first rule the token or an ancestor (`rows`, its whole lineage) breaks for a call of `micros` to the
 * Bee, in the order a caller can act on; null when none. An included subscription call costs 0: only
 * revocation, expiry and scope can refuse it.
 */
export function tokenRefusal (rows: TokenRow[], call: { micros: number, beeId: string }, payer: TokenPayer, at: string): TokenHoldRefusal | null {
  const { micros } = call
  if (rows.some((row) => row.revoked_at !== null)) return { ok: false, reason: 'TOKEN_REVOKED' }
  if (rows.some((row) => row.expires_at <= at)) return { ok: false, reason: 'TOKEN_EXPIRED' }
  if (!rows.every((row) => allows(row, payer, call.beeId))) return { ok: false, reason: 'TOKEN_SCOPE_DENIED' }
  if (rows.some((row) => row.per_call_cap !== null && micros > Number(row.per_call_cap))) return { ok: false, reason: 'TOKEN_PER_CALL_CAP_EXCEEDED' }
  const remainingMicros = Math.min(...rows.map((row) => Number(row.cap) - Number(row.spent)))
  return micros > remainingMicros ? { ok: false, reason: 'TOKEN_CAP_EXCEEDED', remainingMicros } : null
}

class Refused extends Error {
  constructor (readonly outcome: HoldOutcome) { super(outcome.ok ? '' : outcome.reason) }
}

/**
 * The hold of a call paid with a verification token, in one write transaction: the token and all its
 * ancestors are locked and checked (not revoked, not expired, the Bee in scope, the price within each
 * per-call cap and each remaining cap), their spend moves by the price, and the token's wallet is
 * debited as a wallet key's hold debits it; any refusal rolls all of it back. Because the rows are
 * locked (PostgreSQL) or the writer is alone (SQLite), concurrent calls on one token, from any
 * instance, never spend past a cap together.
 */
export async function placeWithToken (writing: WriteTransaction, dialect: Dialect, request: HoldRequest, payer: TokenPayer): Promise<HoldOutcome> {
  const { micros, claim } = request
  try {
    return await writing(async (trx) => {
      const own = await trx.selectFrom('wallet_tokens').select(['path', 'wallet_id']).where('id', '=', payer.id).executeTakeFirst()
      if (own === undefined) throw new Refused({ ok: false, reason: 'TOKEN_NOT_FOUND' })
      const ids = lineageOf(own.path)
      const refused = tokenRefusal(await lockTokens(trx, dialect, ids), request, payer, now())
      if (refused !== null) throw new Refused(refused)
      await trx.updateTable('wallet_tokens').set((eb) => ({ spent: eb('spent', '+', micros) })).where('id', 'in', ids).execute()
      const wallet = await trx.updateTable('wallets').set((eb) => ({ balance: eb('balance', '-', micros) }))
        .where('id', '=', own.wallet_id).where('currency', '=', request.currency).where('frozen', '=', 0).where('balance', '>=', micros)
        .returning(['id', 'balance']).executeTakeFirst()
      if (wallet === undefined) {
        const found = await trx.selectFrom('wallets').select(['balance', 'currency', 'frozen']).where('id', '=', own.wallet_id).executeTakeFirst()
        throw new Refused(walletRefusal(found, request.currency))
      }
      const entry = await trx.insertInto('journal').values({
        wallet_id: wallet.id,
        kind: 'hold',
        amount: micros,
        bee_id: request.beeId,
        request_id: request.requestId,
        idempotency_key: claim?.key ?? null,
        refund_of: null,
        created_at: now()
      }).returning('id').executeTakeFirstOrThrow()
      const holdId = Number(entry.id)
      await trx.insertInto('holds').values({
        id: holdId,
        wallet_id: wallet.id,
        amount: micros,
        state: 'pending',
        expires_at: later(request.expiresInSeconds),
        token_id: payer.id,
        payee: request.payee ?? OPERATOR_ACCOUNT
      }).execute()
      if (claim !== null) {
        await trx.updateTable('idempotency_keys').set({ hold_id: holdId }).where('scope', '=', claim.scope).where('key', '=', claim.key).execute()
      }
      return { ok: true, holdId, walletId: wallet.id, balanceMicros: Number(wallet.balance) }
    })
  } catch (error) {
    if (error instanceof Refused) return error.outcome
    throw error
  }
}
