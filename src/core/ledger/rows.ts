import type { ExpressionBuilder, Selectable } from 'kysely'
import { fromMicros } from '../money.js'
import type { JournalEntry, Wallet } from '../schemas.js'
import type { Tables } from './tables.js'

type WalletRow = Selectable<Tables['wallets']>
type JournalRow = Selectable<Tables['journal']>

const walletColumns = ['id', 'balance', 'currency', 'label', 'frozen', 'created_at'] as const
export const journalColumns = ['id', 'kind', 'amount', 'bee_id', 'request_id', 'idempotency_key', 'hold_id', 'created_at'] as const

/** What the wallet's pending holds reserve: a subquery, so it can sit in a SELECT or a RETURNING. */
const heldMicros = (eb: ExpressionBuilder<Tables, 'wallets'>) => eb.selectFrom('holds')
  .select((hb) => hb.fn.coalesce(hb.fn.sum<number>('holds.amount'), hb.lit(0)).as('held'))
  .whereRef('holds.wallet_id', '=', 'wallets.id').where('holds.state', '=', 'pending')
  .as('held')

/** The columns toWallet reads, for a SELECT or a RETURNING on wallets. */
export const walletView = (eb: ExpressionBuilder<Tables, 'wallets'>) => [...walletColumns, heldMicros(eb)] as const

export const toWallet = (row: Pick<WalletRow, typeof walletColumns[number]> & { held: number | null }): Wallet => ({
  id: row.id,
  balance: fromMicros(Number(row.balance)),
  held: fromMicros(Number(row.held ?? 0)),
  currency: row.currency,
  label: row.label,
  frozen: Number(row.frozen) === 1,
  createdAt: row.created_at
})

export const toEntry = (row: Pick<JournalRow, typeof journalColumns[number]>): JournalEntry => ({
  id: Number(row.id),
  kind: row.kind,
  amount: fromMicros(Number(row.amount)),
  beeId: row.bee_id,
  requestId: row.request_id,
  idempotencyKey: row.idempotency_key,
  holdId: row.hold_id === null ? null : Number(row.hold_id),
  createdAt: row.created_at
})
