import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { fromMicros } from '../money.js'
import type { JournalEntry, Wallet } from '../schemas.js'
import { migrations } from './sqlite-migrations.js'
import type { ChargeOutcome, ChargeRequest, LedgerStore, NewWallet } from './store.js'

interface WalletRow { id: string, balance: number, currency: string, label: string | null, created_at: string }
interface JournalRow {
  id: number
  kind: JournalEntry['kind']
  amount: number
  bee_id: string | null
  request_id: string | null
  created_at: string
}

const toWallet = (row: WalletRow): Wallet => ({
  id: row.id,
  balance: fromMicros(row.balance),
  currency: row.currency,
  label: row.label,
  createdAt: row.created_at
})

const toEntry = (row: JournalRow): JournalEntry => ({
  id: row.id,
  kind: row.kind,
  amount: fromMicros(row.amount),
  beeId: row.bee_id,
  requestId: row.request_id,
  createdAt: row.created_at
})

function migrate (db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)')
  const applied = db.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all()
  const done = new Set(applied.map((row) => row.version))
  const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)')
  migrations.forEach((sql, index) => {
    const version = index + 1
    if (done.has(version)) return
    db.transaction(() => {
      db.exec(sql)
      record.run(version, new Date().toISOString())
    }).immediate()
  })
}

/** The embedded ledger: one SQLite file in WAL mode, every statement prepared once. */
export function openSqliteStore (path: string): LedgerStore {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  // NORMAL in WAL mode: a commit survives a process crash; only an OS crash or power loss can
  // lose the last transactions, never corrupt the file (see the README).
  db.pragma('synchronous = NORMAL')
  db.pragma('busy_timeout = 5000')
  db.pragma('foreign_keys = ON')
  migrate(db)

  const walletColumns = 'id, balance, currency, label, created_at'
  const insertWallet = db.prepare(
    'INSERT INTO wallets (id, token_hash, balance, currency, label, created_at) VALUES (?, ?, ?, ?, ?, ?)'
  )
  const walletById = db.prepare<[string], WalletRow>(`SELECT ${walletColumns} FROM wallets WHERE id = ?`)
  const walletByToken = db.prepare<[string], WalletRow>(`SELECT ${walletColumns} FROM wallets WHERE token_hash = ?`)
  const credit = db.prepare<[number, string], WalletRow>(
    `UPDATE wallets SET balance = balance + ? WHERE id = ? RETURNING ${walletColumns}`
  )
  const debit = db.prepare<[number, string, string, number], { id: string, balance: number }>(
    'UPDATE wallets SET balance = balance - ? WHERE token_hash = ? AND currency = ? AND balance >= ? RETURNING id, balance'
  )
  const insertEntry = db.prepare<[string, string, number, string | null, string | null, number | null, string], { id: number }>(
    `INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, refund_of, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`
  )
  const chargeById = db.prepare<[number], { wallet_id: string, amount: number, bee_id: string | null }>(
    "SELECT wallet_id, amount, bee_id FROM journal WHERE id = ? AND kind = 'charge'"
  )
  const refundOf = db.prepare<[number], { id: number }>('SELECT id FROM journal WHERE refund_of = ?')
  const recent = db.prepare<[string, number], JournalRow>(
    'SELECT id, kind, amount, bee_id, request_id, created_at FROM journal WHERE wallet_id = ? ORDER BY id DESC LIMIT ?'
  )
  const now = () => new Date().toISOString()

  const createWallet = db.transaction((wallet: NewWallet) => {
    const createdAt = now()
    insertWallet.run(wallet.id, wallet.tokenHash, wallet.micros, wallet.currency, wallet.label, createdAt)
    if (wallet.micros > 0) insertEntry.run(wallet.id, 'deposit', wallet.micros, null, null, null, createdAt)
    return walletById.get(wallet.id) as WalletRow
  })

  const deposit = db.transaction((walletId: string, micros: number, requestId: string | null) => {
    const row = credit.get(micros, walletId)
    if (row === undefined) return undefined
    insertEntry.run(walletId, 'deposit', micros, null, requestId, null, now())
    return row
  })

  const charge = db.transaction((request: ChargeRequest): ChargeOutcome => {
    const debited = debit.get(request.micros, request.tokenHash, request.currency, request.micros)
    if (debited !== undefined) {
      const entry = insertEntry.get(debited.id, 'charge', request.micros, request.beeId, request.requestId, null, now())
      return { ok: true, chargeId: (entry as { id: number }).id, walletId: debited.id, balanceMicros: debited.balance }
    }
    // Only a refused charge pays for a second look, to say why.
    const wallet = walletByToken.get(request.tokenHash)
    if (wallet === undefined) return { ok: false, reason: 'WALLET_NOT_FOUND' }
    if (wallet.currency !== request.currency) return { ok: false, reason: 'CURRENCY_MISMATCH' }
    return { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: wallet.balance, currency: wallet.currency }
  })

  const refund = db.transaction((chargeId: number, requestId: string | null) => {
    const original = chargeById.get(chargeId)
    if (original === undefined || refundOf.get(chargeId) !== undefined) return
    credit.run(original.amount, original.wallet_id)
    insertEntry.run(original.wallet_id, 'refund', original.amount, original.bee_id, requestId, chargeId, now())
  })

  return {
    async createWallet (wallet) { return toWallet(createWallet.immediate(wallet)) },
    async getWallet (id) {
      const row = walletById.get(id)
      return row === undefined ? null : toWallet(row)
    },
    async getWalletByToken (tokenHash) {
      const row = walletByToken.get(tokenHash)
      return row === undefined ? null : toWallet(row)
    },
    async deposit (walletId, micros, requestId) {
      const row = deposit.immediate(walletId, micros, requestId)
      return row === undefined ? null : toWallet(row)
    },
    async charge (request) { return charge.immediate(request) },
    async refund (chargeId, requestId) { refund.immediate(chargeId, requestId) },
    async journal (walletId, limit) { return recent.all(walletId, limit).map(toEntry) },
    async ping () { db.prepare('SELECT 1').get() },
    async close () { db.close() }
  }
}
