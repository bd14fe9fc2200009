import type { Kysely, Selectable } from 'kysely'
import type { EarningsBalance, EarningsEntry } from '../../earnings/schemas.js'
import { fromMicros } from '../../money.js'
import { decodeIdCursor } from '../cursors.js'
import type { Dialect } from '../dialect.js'
import { INVALID_CURSOR, page } from '../paging.js'
import type { Tables } from '../tables.js'
import { now } from '../timestamps.js'
import { writeTransaction } from '../write-transaction.js'
import type { EarningsRepository } from './earnings-repository.js'
import { OPERATOR_ACCOUNT } from './split.js'

const toEntry = (row: Selectable<Tables['earnings']>): EarningsEntry => ({
  id: Number(row.id),
  kind: row.kind,
  amount: fromMicros(Number(row.amount)),
  fee: fromMicros(Number(row.fee)),
  currency: row.currency,
  beeId: row.bee_id,
  holdId: row.hold_id === null ? null : Number(row.hold_id),
  requestId: row.request_id,
  reference: row.reference,
  createdAt: row.created_at
})

interface Sums { currency: string, credited: number | string | null, fees: number | string | null, paid: number | string | null }

const toBalance = ({ currency, credited, fees, paid }: Sums): EarningsBalance => ({
  currency,
  balance: fromMicros(Number(credited ?? 0) - Number(paid ?? 0)),
  earned: fromMicros(Number(credited ?? 0)),
  fees: fromMicros(Number(fees ?? 0)),
  paidOut: fromMicros(Number(paid ?? 0))
})

const emptyBalance = (currency: string): EarningsBalance => ({ currency, balance: 0, earned: 0, fees: 0, paidOut: 0 })

/** Earnings over Kysely: the same queries serve SQLite and PostgreSQL. */
export function sqlEarningsRepository (db: Kysely<Tables>, dialect: Dialect): EarningsRepository {
  const writing = writeTransaction(db, dialect)

  /** The account's sums by currency, over its index; `currency` narrows them to one. */
  const sums = (trx: Kysely<Tables>, account: string, currency?: string) => {
    let query = trx.selectFrom('earnings')
      .select((eb) => [
        'currency',
        eb.fn.sum<number>(eb.case().when('kind', '=', 'payout').then(eb.lit(0)).else(eb.ref('amount')).end()).as('credited'),
        eb.fn.sum<number>('fee').as('fees'),
        eb.fn.sum<number>(eb.case().when('kind', '=', 'payout').then(eb.ref('amount')).else(eb.lit(0)).end()).as('paid')
      ])
      .where('account', '=', account).groupBy('currency').orderBy('currency')
    if (currency !== undefined) query = query.where('currency', '=', currency)
    return query
  }

  const exists = async (trx: Kysely<Tables>, account: string) => account === OPERATOR_ACCOUNT ||
    await trx.selectFrom('publishers').select('id').where('id', '=', account).executeTakeFirst() !== undefined

  return {
    exists: (account) => exists(db, account),

    async balances (account) {
      return (await sums(db, account).execute()).map(toBalance)
    },

    async entries (account, { limit, cursor }) {
      const before = cursor === undefined ? undefined : decodeIdCursor(cursor)
      if (before === null) return INVALID_CURSOR
      let query = db.selectFrom('earnings').selectAll().where('account', '=', account).orderBy('id', 'desc').limit(limit + 1)
      if (before !== undefined) query = query.where('id', '<', before)
      return page(await query.execute(), limit, (row) => Number(row.id), toEntry)
    },

    async payout ({ account, micros, currency, reference, requestId }) {
      return await writing(async (trx) => {
        if (!await exists(trx, account)) return { ok: false, reason: 'ACCOUNT_NOT_FOUND' } as const
        // The lock payouts of this account take turns on (SQLite's write transaction already serializes them).
        await trx.insertInto('earnings_accounts').values({ account, currency }).onConflict((oc) => oc.doNothing()).execute()
        if (dialect === 'postgres') {
          await trx.selectFrom('earnings_accounts').select('account').where('account', '=', account).where('currency', '=', currency)
            .forUpdate().execute()
        }
        const before = await sums(trx, account, currency).executeTakeFirst()
        const balance = before === undefined ? emptyBalance(currency) : toBalance(before)
        const available = Number(before?.credited ?? 0) - Number(before?.paid ?? 0)
        if (micros > available) return { ok: false, reason: 'PAYOUT_EXCEEDS_BALANCE', balance } as const
        const row = await trx.insertInto('earnings').values({
          account, currency, kind: 'payout', amount: micros, fee: 0, bee_id: null, hold_id: null, request_id: requestId, reference, created_at: now()
        }).returningAll().executeTakeFirstOrThrow()
        const after = fromMicros(available - micros)
        return { ok: true, payout: toEntry(row), balance: { ...balance, balance: after, paidOut: fromMicros(Number(before?.paid ?? 0) + micros) } } as const
      })
    }
  }
}
