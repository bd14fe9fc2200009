import type { Kysely } from 'kysely'
import { decodeIdCursor } from '../cursors.js'
import { INVALID_CURSOR, page } from '../paging.js'
import { journalColumns, toEntry } from '../rows.js'
import type { Tables } from '../tables.js'
import type { JournalRepository } from './journal-repository.js'

/** The journal over Kysely: the same queries serve SQLite and PostgreSQL. */
export function sqlJournalRepository (db: Kysely<Tables>): JournalRepository {
  const newestFirst = (walletId: string, limit: number) => db.selectFrom('journal').select(journalColumns)
    .where('wallet_id', '=', walletId).orderBy('id', 'desc').limit(limit)

  return {
    async list (walletId, { limit, cursor }) {
      const before = cursor === undefined ? undefined : decodeIdCursor(cursor)
      if (before === null) return INVALID_CURSOR
      let query = newestFirst(walletId, limit + 1)
      if (before !== undefined) query = query.where('id', '<', before)
      return page(await query.execute(), limit, (row) => row.id, toEntry)
    },

    async recent (walletId, limit) {
      return (await newestFirst(walletId, limit).execute()).map(toEntry)
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
    }
  }
}
