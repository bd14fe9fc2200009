import type { Kysely, Selectable } from 'kysely'
import { decodeIdCursor } from '../cursors.js'
import { saleRows } from '../earnings/split.js'
import type { Dialect } from '../dialect.js'
import { INVALID_CURSOR, page } from '../paging.js'
import type { Tables } from '../tables.js'
import { now } from '../timestamps.js'
import { writeTransaction } from '../write-transaction.js'
import type { SettlementRepository } from './settlement-repository.js'

const toSettlement = (row: Selectable<Tables['x402_settlements']>) => ({
  id: Number(row.id),
  paymentKey: row.payment_key,
  beeId: row.bee_id,
  requestId: row.request_id,
  network: row.network,
  asset: row.asset,
  amount: row.amount,
  payTo: row.pay_to,
  payer: row.payer,
  transaction: row.transaction,
  createdAt: row.created_at
})

/** x402 settlements over Kysely: the same queries serve SQLite and PostgreSQL. */
/** `feeBps`: PLATFORM_FEE_BPS, as the capture of a wallet-paid sale takes it. */
export function sqlSettlementRepository (db: Kysely<Tables>, dialect: Dialect, feeBps: number): SettlementRepository {
  const writing = writeTransaction(db, dialect)
  return {
    async record (settlement, sale, { scope, key, status, body }) {
      await writing(async (trx) => {
        const createdAt = now()
        await trx.insertInto('x402_settlements').values({
          payment_key: settlement.paymentKey,
          bee_id: settlement.beeId,
          request_id: settlement.requestId,
          network: settlement.network,
          asset: settlement.asset,
          amount: settlement.amount,
          pay_to: settlement.payTo,
          payer: settlement.payer,
          transaction: settlement.transaction,
          created_at: createdAt
        }).execute()
        // Paid on chain to the operator, outside any wallet: an external deposit, split like a wallet-paid sale.
        await trx.insertInto('earnings').values(saleRows(sale.payee, sale.micros, feeBps, 'x402').map((row) => ({
          ...row, currency: sale.currency, bee_id: sale.beeId, hold_id: null, request_id: sale.requestId, reference: sale.reference, created_at: createdAt
        }))).execute()
        await trx.updateTable('idempotency_keys').set({ state: 'done', response_status: status, response_body: body })
          .where('scope', '=', scope).where('key', '=', key).execute()
      })
    },

    async byPaymentKey (paymentKey) {
      const row = await db.selectFrom('x402_settlements').selectAll().where('payment_key', '=', paymentKey).executeTakeFirst()
      return row === undefined ? null : toSettlement(row)
    },

    async list ({ limit, cursor }) {
      const before = cursor === undefined ? undefined : decodeIdCursor(cursor)
      if (before === null) return INVALID_CURSOR
      let query = db.selectFrom('x402_settlements').selectAll().orderBy('id', 'desc').limit(limit + 1)
      if (before !== undefined) query = query.where('id', '<', before)
      return page(await query.execute(), limit, (row) => Number(row.id), toSettlement)
    }
  }
}
