import type { Kysely, Selectable } from 'kysely'
import type { Dialect } from '../dialect.js'
import type { Tables } from '../tables.js'
import { lineageOf } from '../tokens/token-repository.js'
import type { TokenHoldRefusal, TokenPayer } from './hold-repository.js'

export type TokenRow = Selectable<Tables['wallet_tokens']>

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
