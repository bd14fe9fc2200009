import type { JournalEntry, Wallet } from '../schemas.js'

/**
 * The ledger: wallets and their journal, in integer micro-units. Every backend implements this one
 * interface; nothing else in the service touches the database.
 */
export interface LedgerStore {
  createWallet (input: NewWallet): Promise<Wallet>
  getWallet (id: string): Promise<Wallet | null>
  getWalletByToken (tokenHash: string): Promise<Wallet | null>
  deposit (walletId: string, micros: number, requestId: string | null): Promise<Wallet | null>
  /**
   * Debits `micros` from the wallet holding `tokenHash` and journals the charge, atomically and only
   * if the balance covers it: concurrent calls can never drive a balance below zero.
   */
  charge (request: ChargeRequest): Promise<ChargeOutcome>
  /** Returns a charge to its wallet and journals the refund; a charge is refunded at most once. */
  refund (chargeId: number, requestId: string | null): Promise<void>
  journal (walletId: string, limit: number): Promise<JournalEntry[]>
  ping (): Promise<void>
  close (): Promise<void>
}

export interface NewWallet {
  id: string
  tokenHash: string
  micros: number
  currency: string
  label: string | null
}

export interface ChargeRequest {
  tokenHash: string
  micros: number
  currency: string
  beeId: string
  requestId: string
}

export type ChargeOutcome =
  | { ok: true, chargeId: number, walletId: string, balanceMicros: number }
  | { ok: false, reason: 'WALLET_NOT_FOUND' | 'CURRENCY_MISMATCH' }
  | { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: number, currency: string }
