import type { JournalEntry, Wallet } from '../schemas.js'
import type { CatalogStore } from './catalog-store.js'

/**
 * The ledger: wallets, their journal, and idempotency records, in integer micro-units. One
 * implementation serves SQLite and PostgreSQL; nothing else in the service touches the database.
 */
export interface LedgerStore {
  readonly dialect: 'sqlite' | 'postgres'
  /** Publishers and published Bees, on the same database. */
  readonly catalog: CatalogStore
  createWallet (input: NewWallet): Promise<Wallet>
  getWallet (id: string): Promise<Wallet | null>
  getWalletByToken (tokenHash: string): Promise<Wallet | null>
  listWallets (page: PageRequest): Promise<Page<Wallet>>
  setFrozen (walletId: string, frozen: boolean): Promise<Wallet | null>
  deposit (walletId: string, micros: number, requestId: string | null): Promise<Wallet | null>
  /**
   * Debits `micros` from the wallet holding `tokenHash` and journals the charge, atomically and only
   * if the balance covers it: concurrent calls can never drive a balance below zero.
   */
  charge (request: ChargeRequest): Promise<ChargeOutcome>
  /** Returns a charge to its wallet and journals the refund; a charge is refunded at most once. */
  refund (chargeId: number, requestId: string | null): Promise<void>
  /** Journal entries of a wallet, newest first. */
  journal (walletId: string, page: PageRequest): Promise<Page<JournalEntry>>
  /** The balance next to what the journal says it must be: deposits − charges + refunds. */
  audit (walletId: string): Promise<{ balanceMicros: number, journalMicros: number } | null>
  /** Claims an idempotency key for one execution, or says why it cannot be claimed. */
  claimIdempotencyKey (claim: IdempotencyClaim): Promise<IdempotencyOutcome>
  completeIdempotencyKey (scope: string, key: string, status: number, body: string): Promise<void>
  releaseIdempotencyKey (scope: string, key: string): Promise<void>
  purgeExpiredIdempotencyKeys (): Promise<number>
  ping (): Promise<void>
  close (): Promise<void>
}

export interface PageRequest {
  limit: number
  /** Opaque position from a previous page's nextCursor. */
  cursor?: string | undefined
}

export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

export interface NewWallet {
  id: string
  tokenHash: string
  micros: number
  currency: string
  label: string | null
  /** The request that created it, journaled with the opening deposit. */
  requestId?: string | null
}

export interface ChargeRequest {
  tokenHash: string
  micros: number
  currency: string
  beeId: string
  requestId: string
  idempotencyKey: string | null
}

export type ChargeOutcome =
  | { ok: true, chargeId: number, walletId: string, balanceMicros: number }
  | { ok: false, reason: 'WALLET_NOT_FOUND' | 'CURRENCY_MISMATCH' | 'WALLET_FROZEN' }
  | { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: number, currency: string }

export interface IdempotencyClaim {
  scope: string
  key: string
  requestHash: string
  ttlSeconds: number
  /** An in-flight claim older than this is taken to be abandoned (its process died) and may be taken over. */
  leaseSeconds: number
}

export type IdempotencyOutcome =
  | { state: 'claimed' }
  | { state: 'in-flight' }
  | { state: 'mismatch' }
  | { state: 'replay', status: number, body: string }
