import type { IdempotencyCompletion } from '../idempotency/idempotency-repository.js'

/** A verification token paying for a call: the hold is checked against it and its ancestors, and debits its wallet. */
export interface TokenPayer {
  id: string
  /** The Bee's category, for the tokens' allow-lists. */
  category: string
}

export interface HoldRequest {
  /** The wallet key's hash (unused when `token` pays). */
  tokenHash: string
  /** Set when a verification token pays instead of a wallet key. */
  token?: TokenPayer | undefined
  micros: number
  currency: string
  beeId: string
  requestId: string
  /** The idempotency claim this execution runs under, if any: the hold is recorded on it. */
  claim: { scope: string, key: string } | null
  expiresInSeconds: number
  /** The earnings account the capture credits: the Bee's publisher; absent, the operator (built-in Bees). */
  payee?: string
}

export type HoldOutcome =
  | { ok: true, holdId: number, walletId: string, balanceMicros: number }
  | { ok: false, reason: 'WALLET_NOT_FOUND' | 'CURRENCY_MISMATCH' | 'WALLET_FROZEN' }
  | { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: number, currency: string }
  | { ok: false, reason: 'TOKEN_NOT_FOUND' | 'TOKEN_REVOKED' | 'TOKEN_EXPIRED' | 'TOKEN_SCOPE_DENIED' | 'TOKEN_PER_CALL_CAP_EXCEEDED' }
  /** The least any of the token and its ancestors still has to spend. */
  | { ok: false, reason: 'TOKEN_CAP_EXCEEDED', remainingMicros: number }

/** The hold outcomes a token, not its wallet, is refused with. */
export type TokenHoldRefusal = Extract<HoldOutcome, { ok: false, reason: `TOKEN_${string}` }>

export interface CaptureRequest { holdId: number, requestId: string, completion: IdempotencyCompletion | null }

export interface RenewedHold { walletId: string, micros: number, balanceMicros: number }

/** The money movement of a paid call: a hold debits at once, then is captured (a sale) or voided (credited back). */
export interface HoldRepository {
  /**
   * Places a hold: debits `micros` from the wallet holding `tokenHash` at once and journals the hold,
   * atomically and only if the balance covers it, so concurrent calls can never drive a balance below
   * zero. With `claim`, the hold is recorded on that idempotency key in the same transaction. With
   * `token`, the token's and its ancestors' caps are charged in the same transaction (see Debit.holdWithToken).
   */
  place (request: HoldRequest): Promise<HoldOutcome>
  /**
   * Pushes a still-pending hold's expiry to `expiresInSeconds` from now, for a retry that takes over
   * its claim; null when the hold is no longer pending.
   */
  renew (holdId: number, expiresInSeconds: number): Promise<RenewedHold | null>
  /**
   * Captures a pending hold (a journal row, no wallet balance change) and credits the price to the hold's
   * payee, less the platform fee to the operator (earnings rows), and, with `completion`, stores the
   * answer for replay, all in the same transaction. False when the hold was no longer pending: nothing
   * was captured or stored.
   */
  capture (holdId: number, requestId: string, completion: IdempotencyCompletion | null): Promise<boolean>
  /**
   * Voids a pending hold: journals the void and credits the amount back (to the paying token and its
   * ancestors' caps too). False when it was not pending.
   */
  void (holdId: number, requestId: string | null): Promise<boolean>
  /** Voids up to `limit` pending holds past their expiry; safe when several instances sweep at once. */
  voidExpired (limit: number): Promise<number>
}
