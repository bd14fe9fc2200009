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

/** Idempotency keys: one execution per key, its answer stored for replay until the key expires. */
export interface IdempotencyRepository {
  /** Claims a key for one execution, or says why it cannot be claimed. */
  claim (claim: IdempotencyClaim): Promise<IdempotencyOutcome>
  /** Stores the answer of a claimed key for replay. */
  complete (completion: IdempotencyCompletion): Promise<void>
  /** Gives up an in-flight claim, so the same key may be tried again at once. */
  release (scope: string, key: string): Promise<void>
  /** Deletes expired keys; returns how many. */
  purgeExpired (): Promise<number>
}
