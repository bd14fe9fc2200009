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
   * Places a hold: debits `micros` from the wallet holding `tokenHash` at once and journals the hold,
   * atomically and only if the balance covers it, so concurrent calls can never drive a balance below
   * zero. With `claim`, the hold is recorded on that idempotency key in the same transaction.
   */
  placeHold (request: HoldRequest): Promise<HoldOutcome>
  /**
   * Pushes a still-pending hold's expiry to `expiresInSeconds` from now, for a retry that takes over
   * its claim; null when the hold is no longer pending.
   */
  renewHold (holdId: number, expiresInSeconds: number): Promise<RenewedHold | null>
  /**
   * Captures a pending hold (a journal row, no balance change) and, with `completion`, stores the
   * answer for replay in the same transaction. False when the hold was no longer pending: nothing
   * was captured or stored.
   */
  captureHold (holdId: number, requestId: string, completion: IdempotencyCompletion | null): Promise<boolean>
  /** Voids a pending hold: journals the void and credits the amount back. False when it was not pending. */
  voidHold (holdId: number, requestId: string | null): Promise<boolean>
  /** Voids up to `limit` pending holds past their expiry; safe when several instances sweep at once. */
  voidExpiredHolds (limit: number): Promise<number>
  /** Journal entries of a wallet, newest first. */
  journal (walletId: string, page: PageRequest): Promise<Page<JournalEntry>>
  /** The balance next to what the journal says it must be: deposits − holds + voids (− charges + refunds, legacy). */
  audit (walletId: string): Promise<{ balanceMicros: number, journalMicros: number } | null>
  /** Claims an idempotency key for one execution, or says why it cannot be claimed. */
  claimIdempotencyKey (claim: IdempotencyClaim): Promise<IdempotencyOutcome>
  completeIdempotencyKey (completion: IdempotencyCompletion): Promise<void>
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

export interface HoldRequest {
  tokenHash: string
  micros: number
  currency: string
  beeId: string
  requestId: string
  /** The idempotency claim this execution runs under, if any: the hold is recorded on it. */
  claim: { scope: string, key: string } | null
  expiresInSeconds: number
}

export type HoldOutcome =
  | { ok: true, holdId: number, walletId: string, balanceMicros: number }
  | { ok: false, reason: 'WALLET_NOT_FOUND' | 'CURRENCY_MISMATCH' | 'WALLET_FROZEN' }
  | { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: number, currency: string }

export interface CaptureRequest { holdId: number, requestId: string, completion: IdempotencyCompletion | null }

export interface RenewedHold { walletId: string, micros: number, balanceMicros: number }

export interface IdempotencyCompletion { scope: string, key: string, status: number, body: string }

export interface IdempotencyClaim {
  scope: string
  key: string
  requestHash: string
  ttlSeconds: number
  /**
   * An in-flight claim older than this is taken to be abandoned (its process died) and may be taken
   * over by the same request.
   */
  leaseSeconds: number
}

export type IdempotencyOutcome =
  /** `holdId`: the hold of an abandoned claim this one took over, to be reused rather than doubled. */
  | { state: 'claimed', holdId: number | null }
  | { state: 'in-flight' }
  | { state: 'mismatch' }
  | { state: 'replay', status: number, body: string }
