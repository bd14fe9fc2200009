import type { CaptureRequest, HoldOutcome, HoldRequest, TokenPayer } from './hold-repository.js'

export interface Debited { id: number, wallet_id: string, balance: number }

/** The two statements every paid call runs, and the ones the dialects force apart. */
export interface Debit {
  /**
   * Takes the price from the wallet, journals the hold, records its state and links it to the
   * idempotency claim, atomically, or returns undefined when the wallet cannot pay.
   */
  hold (request: HoldRequest): Promise<Debited | undefined>
  /**
   * The hold of a call paid with a verification token, atomically: the token and all its ancestors are
   * locked (PostgreSQL, in id order, before the wallet) and checked (see tokenRefusal), the token's wallet
   * is debited as `hold` debits, and only then do their spends move; any refusal writes nothing.
   * Concurrent calls on one token, from any instance, never spend past a cap together.
   */
  holdWithToken (request: HoldRequest, payer: TokenPayer): Promise<HoldOutcome>
  /**
   * Captures the hold if it is still pending (a journal row naming it) and, with a completion, stores
   * the answer for replay, atomically; false when the hold was already settled.
   */
  capture (request: CaptureRequest): Promise<boolean>
}
