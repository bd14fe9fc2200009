import type { X402Settlement } from '../../x402/schemas.js'
import type { ExternalSale } from '../earnings/earnings-repository.js'
import type { IdempotencyCompletion } from '../idempotency/idempotency-repository.js'
import type { PageOutcome, PageRequest } from '../paging.js'

/** A settled x402 payment as the ledger records it (the id and time are the ledger's). */
export type NewSettlement = Omit<X402Settlement, 'id' | 'createdAt'>

/** x402 settlements: each payment a caller made on chain for one call, journaled once. */
export interface SettlementRepository {
  /**
   * Journals a settlement, credits the sale to the Bee's payee (less the platform fee, as a capture
   * does), and stores the answer it paid for (the claim of its payment) in one transaction, so a
   * settled payment is never without the answer a retry of it replays, nor credited twice.
   */
  record (settlement: NewSettlement, sale: ExternalSale, completion: IdempotencyCompletion): Promise<void>
  /** The settlement of a payment, found by its key (network, asset, payer and nonce). */
  byPaymentKey (paymentKey: string): Promise<X402Settlement | null>
  /** Every settlement, newest first, a page at a time. */
  list (page: PageRequest): Promise<PageOutcome<X402Settlement>>
}
