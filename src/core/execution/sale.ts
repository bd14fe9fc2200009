import type { SettleResponse } from '@x402/core/types'
import { ApiError, failure, failureAs } from '../errors.js'
import { payeeOf } from '../ledger/earnings/split.js'
import type { Ledger } from '../ledger/ledger.js'
import { storeFaultOf } from '../ledger/store-faults.js'
import type { BeeContext, BeeOutcome, RegisteredBee } from '../registry.js'
import type { Logger } from '../logger.js'
import type { X402Gate } from '../x402/gate.js'
import type { Execution, ExecutionOutcome, Honey, HoneySerializer, Included, X402Call } from './execution.js'
import { paymentRequired, type PaymentOptions } from './payment-required.js'
import { paymentResponseOf } from '../x402/payment-claim.js'

/** What a stream's call adds to a Bee's context. */
export type StreamingContext = Pick<BeeContext, 'events' | 'signal' | 'timeoutMs'>

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))

function invalidOutput (bee: RegisteredBee, what: string): ApiError {
  return failureAs('BEE_OUTPUT_INVALID', bee.remote ? 502 : 500, `${bee.record.id} ${what}. You were not charged.`)
}

/** The Bee's outcome as Honey, once its result is checked against its outputSchema (throws BEE_OUTPUT_INVALID otherwise). */
export function honeyOf (bee: RegisteredBee, outcome: BeeOutcome<unknown>, log: Logger): Honey {
  if (!bee.validateOutput(outcome.result)) {
    log.error({ beeId: bee.record.id, errors: bee.validateOutput.errors }, 'Bee output does not match its outputSchema')
    throw invalidOutput(bee, 'produced an answer that breaks its own outputSchema')
  }
  return {
    beeId: bee.record.id,
    timestamp: new Date().toISOString(),
    result: outcome.result,
    confidence: clamp01(outcome.confidence),
    freshness: Math.max(0, outcome.freshness)
  }
}

/** Honey's bytes, the ones every replay serves; an answer that cannot be serialized (nested too deep) is the Bee's fault. */
export function serialized (bee: RegisteredBee, honey: Honey, serializer: HoneySerializer, log: Logger): string {
  try {
    return serializer.serialize(honey)
  } catch (error) {
    log.error({ err: error, beeId: bee.record.id }, 'Bee output could not be serialized')
    throw invalidOutput(bee, 'produced an answer that cannot be serialized')
  }
}

/**
 * The hold was settled before this execution could capture it: the sweeper voided it (the call ran
 * past HOLD_TIMEOUT_SECONDS) or another execution under the same key captured it. Either way this
 * answer was not paid for by this call, so it is not served.
 */
function holdSettled (): ApiError {
  return failure('HOLD_EXPIRED', 'The hold on your wallet was released before this call finished (it took longer ' +
    'than HOLD_TIMEOUT_SECONDS), so its answer is not served and you were not charged for it. Retry (with the same ' +
    'Idempotency-Key, if you sent one).')
}

/**
 * Settles the x402 payment of a call that succeeded, then journals it with the answer in one
 * transaction. A refused settlement moved nothing: the answer is not served and the payment may be
 * retried. One whose outcome is unknown may have moved money: its claim is kept, so a retry of the
 * same payment waits out the lease and is then verified again (a settled payment fails that: its
 * nonce is spent on chain), never settled twice.
 */
async function settle (ledger: Ledger, execution: Execution, options: PaymentOptions, call: X402Call, body: string): Promise<SettleResponse> {
  const claim = execution.claim as NonNullable<Execution['claim']>
  const settled = await (options.x402 as X402Gate).settle({ payload: call.payload, requirements: call.requirements, payer: call.payer ?? '' })
  if (!settled.ok && settled.kind === 'unknown') {
    execution.claim = null
    execution.log.error({ paymentKey: call.paymentKey, beeId: execution.bee.record.id, reason: settled.reason },
      'x402 settlement outcome unknown: reconcile this payment with the facilitator')
    throw failure('X402_SETTLEMENT_UNKNOWN', 'The x402 facilitator did not say whether the payment settled, so the answer is not ' +
      `served. Retry with the same PAYMENT-SIGNATURE after a minute: if it did not settle, the call runs and settles then; if it did, quote request id ${execution.requestId}.`)
  }
  if (!settled.ok) {
    throw await paymentRequired(execution, options, 'X402_SETTLEMENT_FAILED',
      `The x402 payment could not be settled (${settled.reason}); the answer is not served and nothing was charged.`)
  }
  const { response } = settled
  const { requirements } = call
  const settlement = {
    paymentKey: call.paymentKey,
    beeId: execution.bee.record.id,
    requestId: execution.requestId,
    network: response.network,
    asset: requirements.asset,
    amount: response.amount ?? requirements.amount,
    payTo: requirements.payTo,
    payer: response.payer ?? call.payer ?? '',
    transaction: response.transaction
  }
  const { bee } = execution
  const sale = {
    payee: payeeOf(bee.record.ownerId),
    micros: bee.priceMicros,
    currency: bee.record.pricing.currency,
    beeId: settlement.beeId,
    requestId: settlement.requestId,
    reference: settlement.paymentKey
  }
  await ledger.settlements.record(settlement, sale, { scope: claim.scope, key: claim.key, status: 200, body })
  execution.claim = null
  return paymentResponseOf(settlement)
}

/**
 * Captures the hold and keeps the answer for replay in one transaction, so a crash can never leave
 * a sale without its stored answer (a retry would pay again) or an answer stored for free. A call
 * paid with x402 is settled instead.
 */
async function sell (ledger: Ledger, execution: Execution, options: PaymentOptions, body: string): Promise<SettleResponse | null> {
  const { claim, hold, x402 } = execution
  if (x402 !== null) return await settle(ledger, execution, options, x402, body)
  const completion = claim === null ? null : { scope: claim.scope, key: claim.key, status: 200, body }
  if (hold !== null) {
    if (!await ledger.holds.capture(hold.id, execution.requestId, completion)) throw holdSettled()
  } else if (completion !== null) {
    await ledger.idempotency.complete(completion)
  }
  // Completed with the answer: not to be released.
  execution.claim = null
  return null
}

/** A failed call gives its included call back to the subscription's quota; if that fails, the call stays counted (never double-counted). */
async function giveBack (ledger: Ledger, execution: Execution, included: Included): Promise<void> {
  try {
    await ledger.subscriptions.giveBack(included.callId)
  } catch (error) {
    // With the database away, its outage is logged once (store-health.ts), not with every call it fails.
    execution.log[storeFaultOf(error) === null ? 'error' : 'debug']({ err: error, subscriptionId: included.subscriptionId, callId: included.callId },
      'give-back of an included call failed')
  }
}

async function voidHold (ledger: Ledger, execution: Execution, holdId: number): Promise<void> {
  try {
    await ledger.holds.void(holdId, execution.requestId)
  } catch (error) {
    // The hold stays pending: the sweeper voids it once it expires. With the database away, as for give-backs.
    execution.log[storeFaultOf(error) === null ? 'error' : 'debug']({ err: error, holdId }, 'void failed')
  }
}

/**
 * The rest of the pipeline: run the Bee, check its output against its outputSchema, wrap it in
 * Honey, serialize it (the bytes every replay serves), then capture the hold and store the answer
 * together. Any failure before the capture voids the hold, serializing included: an answer that
 * cannot be serialized (nested too deep) must not keep the caller's money. A stream's call passes where its events go,
 * its signal and its time limit (`streaming`).
 */
export async function runAndSell (ledger: Ledger, execution: Execution, input: unknown,
  serializer: HoneySerializer, options: PaymentOptions, streaming: StreamingContext = {}): Promise<ExecutionOutcome> {
  const { bee, hold, included, log } = execution
  let honey: Honey
  let body: string
  let payment: SettleResponse | null
  try {
    const outcome = await bee.definition.execute(input, { log, requestId: execution.requestId, ...streaming })
    honey = honeyOf(bee, outcome, log)
    body = serialized(bee, honey, serializer, log)
    payment = await sell(ledger, execution, options, body)
  } catch (error) {
    if (hold !== null) await voidHold(ledger, execution, hold.id)
    if (included !== null) await giveBack(ledger, execution, included)
    if (error instanceof ApiError) return { ok: false, error }
    throw error
  }
  return {
    ok: true,
    honey,
    body,
    replayed: false,
    charge: hold === null ? null : { micros: hold.micros, currency: bee.record.pricing.currency, balanceMicros: hold.balanceMicros },
    payment
  }
}
