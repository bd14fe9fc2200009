import { createHash } from 'node:crypto'
import type { SettleResponse } from '@x402/core/types'
import { failure } from '../errors.js'
import type { Execution, Step } from '../execution/execution.js'
import type { Ledger } from '../ledger/ledger.js'
import { presentsWallet } from '../tokens/holder.js'
import type { TokenSigner } from '../tokens/verifier.js'
import { WALLET_HEADER_NAME } from '../schemas.js'

export const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

export interface IdempotencyLimits {
  ttlSeconds: number
  /** An in-flight claim older than this is taken to be abandoned, and may be taken over by its retry. */
  leaseSeconds: number
}

/** The stored answer to an earlier request with the same key, served as it was (with the x402 settlement that paid for it, if one did). */
export interface Replay { status: number, body: string, payment?: SettleResponse | null }

/** Keys are scoped to the wallet: the same key from two wallets is two requests. */
const scopeOf = (tokenHash: string) => `wallet:${tokenHash}`

/** What makes two requests under one key the same request: the Bee, the input and anything else (an x402 payment's signature). */
export const requestHashOf = (beeId: string, input: unknown, ...more: string[]) =>
  createHash('sha256').update(beeId).update('\n').update(JSON.stringify(input)).update(more.join('\n')).digest('hex')

/**
 * The idempotency step. A retry with the same key and input replays the first 200 and charges
 * nothing; the same key with other input is 422; a retry while the first runs is 409. An answer is
 * stored only for a caller with a wallet, so anonymous callers cannot make the server store anything:
 * a key on a free Bee needs a valid wallet token too. No key: nothing to do.
 */
export async function claimKey (ledger: Ledger, limits: IdempotencyLimits, execution: Execution, key: unknown,
  input: unknown, tokens: TokenSigner): Promise<Step<{ replay: Replay | null }>> {
  if (key === undefined) return { ok: true, replay: null }
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    return { ok: false, error: failure('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1 to 255 visible ASCII characters; a UUID is ideal.') }
  }
  const { bee, tokenHash } = execution
  if (bee.paid) {
    // Without a token a paid call is refused by the payment step anyway: nothing to claim.
    if (tokenHash === null) return { ok: true, replay: null }
  } else if (tokenHash === null || !await presentsWallet(ledger, tokens, tokenHash, execution.verificationToken, Date.now())) {
    return {
      ok: false,
      error: failure('IDEMPOTENCY_WALLET_REQUIRED', `${tokenHash === null ? '' : `No wallet has the token in ${WALLET_HEADER_NAME}. `}` +
        `An Idempotency-Key on a free Bee is honoured only with a valid wallet token in ${WALLET_HEADER_NAME} (nothing is ` +
        'charged; the stored answer is kept under that wallet): send one, or drop the key.')
    }
  }
  const scope = scopeOf(tokenHash)
  const outcome = await ledger.idempotency.claim({
    // A pinned call is another request than an unpinned one, or one pinned otherwise; unpinned calls hash as before versions.
    scope,
    key,
    requestHash: execution.pin === null ? requestHashOf(bee.record.id, input) : requestHashOf(bee.record.id, input, `bee-version:${execution.pin}`),
    ttlSeconds: limits.ttlSeconds,
    leaseSeconds: limits.leaseSeconds
  })
  switch (outcome.state) {
    case 'claimed':
      execution.claim = { scope, key, holdId: outcome.holdId }
      return { ok: true, replay: null }
    case 'in-flight':
      return { ok: false, error: failure('IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still running; retry in a moment to get its result.') }
    case 'mismatch':
      return { ok: false, error: failure('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request; use a new key for a new request.') }
    case 'replay':
      return { ok: true, replay: { status: outcome.status, body: outcome.body } }
  }
}

/**
 * Frees a key whose execution did not complete (a sale completes it, with the capture), so the retry
 * of a failure really retries. Nothing was sold: the hold, if any, was voided.
 */
export async function releaseKey (ledger: Ledger, execution: Execution): Promise<void> {
  const { claim } = execution
  if (claim === null) return
  execution.claim = null
  await ledger.idempotency.release(claim.scope, claim.key)
}
