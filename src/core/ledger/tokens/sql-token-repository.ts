import { type Kysely, type Selectable, sql } from 'kysely'
import { decodeCursor } from '../cursors.js'
import { INVALID_CURSOR, page } from '../paging.js'
import type { Tables } from '../tables.js'
import { now } from '../timestamps.js'
import { TOKEN_ID_PATTERN } from './token-id.js'
import type { TokenRepository, WalletToken } from './token-repository.js'

const tokenIdShape = new RegExp(TOKEN_ID_PATTERN)

const list = (text: string | null): string[] | null => text === null ? null : JSON.parse(text) as string[]

export const toToken = (row: Selectable<Tables['wallet_tokens']>): WalletToken => ({
  id: row.id,
  walletId: row.wallet_id,
  parentId: row.parent_id,
  path: row.path,
  capMicros: Number(row.cap),
  spentMicros: Number(row.spent),
  perCallCapMicros: row.per_call_cap === null ? null : Number(row.per_call_cap),
  bees: list(row.bees),
  categories: list(row.categories),
  label: row.label,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  createdAt: row.created_at
})

/** A descendant's path starts with its ancestor's: compared by prefix, free of LIKE's wildcards. */
const startsWith = (prefix: string) => sql<boolean>`substr(path, 1, ${prefix.length}) = ${prefix}`

/** Tokens over Kysely: the same queries serve SQLite and PostgreSQL. */
export function sqlTokenRepository (db: Kysely<Tables>): TokenRepository {
  return {
    async create (token, parentPath) {
      const row = await db.insertInto('wallet_tokens').values({
        id: token.id,
        wallet_id: token.walletId,
        parent_id: token.parentId,
        path: `${parentPath ?? '/'}${token.id}/`,
        cap: token.capMicros,
        per_call_cap: token.perCallCapMicros,
        bees: token.bees === null ? null : JSON.stringify(token.bees),
        categories: token.categories === null ? null : JSON.stringify(token.categories),
        label: token.label,
        expires_at: token.expiresAt,
        revoked_at: null,
        created_at: now()
      }).returningAll().executeTakeFirstOrThrow()
      return toToken(row)
    },

    async get (id) {
      const row = await db.selectFrom('wallet_tokens').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : toToken(row)
    },

    async list (walletId, under, { limit, cursor }) {
      const after = cursor === undefined ? undefined : decodeCursor(cursor, tokenIdShape)
      if (after === null) return INVALID_CURSOR
      let query = db.selectFrom('wallet_tokens').selectAll().where('wallet_id', '=', walletId).orderBy('id').limit(limit + 1)
      if (under !== null) query = query.where(startsWith(under))
      if (after !== undefined) query = query.where('id', '>', after)
      return page(await query.execute(), limit, (row) => row.id, toToken)
    },

    async revoke (walletId, path) {
      const result = await db.updateTable('wallet_tokens').set({ revoked_at: now() })
        .where('wallet_id', '=', walletId).where(startsWith(path)).where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows)
    }
  }
}
