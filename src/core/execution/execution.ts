import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { ApiError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { RegisteredBee } from '../registry.js'

/** The hold placed before the Bee runs: captured with the answer, or voided if the Bee fails. */
export interface Hold {
  id: number
  walletId: string
  micros: number
  /** The wallet's available balance once the hold was placed. */
  balanceMicros: number
}

/** A call included in a subscription's quota: given back if the Bee fails. */
export interface Included {
  /** The call's row in the journal of included calls, which a give-back marks. */
  callId: number
  subscriptionId: string
}

/** A claimed Idempotency-Key; `holdId` is the pending hold of an abandoned claim this execution took over. */
export interface Claim {
  scope: string
  key: string
  holdId: number | null
}

/** An x402 payment this execution is paid with: claimed by its key, then verified, settled only after the Bee succeeded. */
export interface X402Call {
  payload: PaymentPayload
  requirements: PaymentRequirements
  /** network:asset:payer:nonce: one payment, one call. */
  paymentKey: string
  /** Set once the facilitator verified the payment. */
  payer: string | null
}

/**
 * One execution on its way through the pipeline: what each step learned, for the next. Every door
 * keeps one per call (HTTP on the request, MCP and jobs in a local).
 */
export interface Execution {
  readonly bee: RegisteredBee
  readonly requestId: string
  readonly log: Logger
  /** The presented wallet credential, hashed as the ledger stores it; null when none was sent. */
  readonly tokenHash: string | null
  /** The presented credential when it is a verification token (see isVerificationToken); null for a wallet key or none. */
  readonly verificationToken: string | null
  /** What the call is, as its door names it to an x402 client (the URL of an HTTP call; mcp://tool/<id>). */
  readonly resource: string
  /** An x402 payment payload the caller presented (as its door decoded it, unchecked); null when none. */
  readonly presentedPayment: unknown
  /** The Bee-Version the caller pinned, as sent (part of what makes a request under an Idempotency-Key the same); null when unpinned. */
  readonly pin: string | null
  /** Set by the claim step; cleared once the answer is stored with it (or the key is released). */
  claim: Claim | null
  /** Set by the payment step on a pay-per-use Bee, or on a subscription Bee past its quota (the overage). */
  hold: Hold | null
  /** Set by the payment step on a subscription Bee when the call is within the quota. */
  included: Included | null
  /** Set by the claim step when the call pays with x402 instead of a wallet. */
  x402: X402Call | null
}

/** The Honey envelope, as the pipeline builds it (the Bee's own result schema is checked separately). */
export interface Honey {
  beeId: string
  timestamp: string
  result: unknown
  confidence: number
  freshness: number
}

/**
 * What makes an answer's bytes, which every replay of it serves: HTTP passes its reply, whose route serializer
 * knows the Bee's output schema (an object the door has anyway, so no function is made per call); others JSON.
 */
export interface HoneySerializer {
  serialize (honey: Honey): string
}

/** What a call cost: absent for free Bees and idempotent replays. */
export interface Charge {
  micros: number
  /** The currency of the price and the balance. */
  currency: string
  /** The wallet's available balance after the call. */
  balanceMicros: number
}

/** A step that either lets the execution go on or says why it stops. */
export type Step<T = object> = ({ ok: true } & T) | { ok: false, error: ApiError }

/** What an execution ends in: Honey (with its serialized bytes, the same a replay serves) or an error. */
export type ExecutionOutcome = Step<{
  honey: Honey
  body: string
  replayed: boolean
  charge: Charge | null
  /** The x402 settlement that paid for the answer (on a replay too); null when no x402 payment was made. */
  payment: SettleResponse | null
}>

/** A call to execute a Bee, as any door hands it to the core. */
export interface ExecutionRequest {
  beeId: string
  input: unknown
  /** The wallet credential (X-Registry-Wallet-Token, or the door's equivalent); undefined when absent. */
  walletToken: string | undefined
  /** The Idempotency-Key as received (checked by the claim step); undefined when absent. */
  idempotencyKey: unknown
  /** An x402 payment payload, as the door decoded it; undefined when none was presented. */
  x402Payment?: unknown
  /** The call as the door names it to x402 clients; see Execution.resource. */
  resource?: string
  requestId: string
  log: Logger
  /** The Bee's version the caller pinned (Bee-Version, or the door's equivalent); undefined: the latest. */
  version?: string | undefined
}
