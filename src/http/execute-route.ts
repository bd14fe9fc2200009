import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { beeOf } from '../../plugins/registry.js'
import { REPLAYED_HEADER } from '../../plugins/idempotency.js'
import { ApiError, beeNotFound } from '../core/errors.js'
import { fromMicros } from '../core/money.js'
import type { RegisteredBee } from '../core/registry.js'
import { ErrorBody, Honey, PaymentRequiredBody, ValidationErrorBody } from '../core/schemas.js'
import { Type, type TSchema } from 'typebox'

export const COST_HEADER = 'x-registry-cost'
export const BALANCE_HEADER = 'x-registry-balance'

const clamp01 = (value: number) => Math.min(1, Math.max(0, value))

/**
 * The execution pipeline after validation and payment: run the Bee, check its output against its
 * outputSchema, wrap it in Honey, then capture the hold and store the answer for replay together.
 * Any failure before the capture voids the hold, and that includes serializing the answer: it
 * happens here rather than after the handler returns, where a failure (an upstream answer nested
 * too deep to stringify) would reach the client as a 500 with the hold kept.
 */
export async function runBee (request: FastifyRequest, reply: FastifyReply) {
  const bee = beeOf(request) as RegisteredBee
  const hold = request.hold
  let payload: string
  try {
    const outcome = await bee.definition.execute(request.body, { log: request.log, requestId: request.id })
    if (!bee.validateOutput(outcome.result)) {
      request.log.error({ beeId: bee.record.id, errors: bee.validateOutput.errors }, 'Bee output does not match its outputSchema')
      throw invalidOutput(bee, 'produced an answer that breaks its own outputSchema')
    }
    payload = serializeHoney(reply, bee, {
      beeId: bee.record.id,
      timestamp: new Date().toISOString(),
      result: outcome.result,
      confidence: clamp01(outcome.confidence),
      freshness: Math.max(0, outcome.freshness)
    })
    await sell(request, payload)
  } catch (error) {
    if (hold !== null) await voidHold(request, hold.id)
    throw error
  }
  if (hold !== null) {
    reply.header(COST_HEADER, fromMicros(hold.micros))
    reply.header(BALANCE_HEADER, fromMicros(hold.balanceMicros))
  }
  return reply.type('application/json; charset=utf-8').send(payload)
}

/**
 * Captures the hold and keeps the answer for replay in one transaction, so a crash can never leave
 * a sale without its stored answer (a retry would pay again) or an answer stored for free.
 */
async function sell (request: FastifyRequest, payload: string): Promise<void> {
  const { ledger } = request.server
  const claim = request.idempotency
  const completion = claim === null ? null : { scope: claim.scope, key: claim.key, status: 200, body: payload }
  if (request.hold !== null) {
    if (!await ledger.holds.capture(request.hold.id, request.id, completion)) throw holdSettled()
  } else if (completion !== null) {
    await ledger.idempotency.complete(completion)
  }
  // Completed: the onSend hook must not free the key.
  request.idempotency = null
}

/**
 * The hold was settled before this execution could capture it: the sweeper voided it (the call ran
 * past HOLD_TIMEOUT_SECONDS) or another execution under the same key captured it. Either way this
 * answer was not paid for by this call, so it is not served.
 */
function holdSettled (): ApiError {
  return new ApiError(503, 'HOLD_EXPIRED', 'The hold on your wallet was released before this call finished (it took longer ' +
    'than HOLD_TIMEOUT_SECONDS), so its answer is not served and you were not charged for it. Retry (with the same ' +
    'Idempotency-Key, if you sent one).')
}

function invalidOutput (bee: RegisteredBee, what: string): ApiError {
  return new ApiError(bee.remote ? 502 : 500, 'BEE_OUTPUT_INVALID', `${bee.record.id} ${what}. You were not charged.`)
}

/** The route's own 200 serializer, so the bytes are exactly what returning the object would send. */
function serializeHoney (reply: FastifyReply, bee: RegisteredBee, honey: Record<string, unknown>): string {
  try {
    // The route's serializer (fast-json-stringify) makes a string; the stored replay is that string.
    return reply.serialize(honey) as string
  } catch (error) {
    reply.log.error({ err: error, beeId: bee.record.id }, 'Bee output could not be serialized')
    throw invalidOutput(bee, 'produced an answer that cannot be serialized')
  }
}

/**
 * preValidation of every execute route: finds the Bee (404 when unknown, before the body is even
 * looked at), refuses an inactive one with 409, and marks a deprecated one with Deprecation/Sunset.
 */
export async function admitBee (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  let bee = request.routeOptions.config.bee
  if (bee === undefined) {
    const { id } = request.params as { id: string }
    bee = request.server.registry.get(id)
    if (bee === undefined) throw beeNotFound(id)
    request.bee = bee
  }
  const { id, status, statusMessage, sunsetAt, lastUpdated } = bee.record
  if (status === 'inactive') {
    throw new ApiError(409, 'BEE_INACTIVE', `${id} is inactive${statusMessage === null ? '' : `: ${statusMessage}`}. It cannot be executed now.`)
  }
  if (status === 'deprecated') {
    // RFC 9745: when it was deprecated, as a structured-field date; RFC 8594: when it goes away.
    reply.header('deprecation', `@${Math.floor(Date.parse(lastUpdated) / 1000)}`)
    if (sunsetAt !== null) reply.header('sunset', new Date(sunsetAt).toUTCString())
  }
}

async function voidHold (request: FastifyRequest, holdId: number): Promise<void> {
  try {
    await request.server.ledger.holds.void(holdId, request.id)
  } catch (error) {
    // The hold stays pending: the sweeper voids it once it expires.
    request.log.error({ err: error, holdId }, 'void failed')
  }
}

const errorResponse = (description: string) => ({ ...ErrorBody, description })

/** Response schemas for every status an execute route can send. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    description: 'Makes a retry safe: the same key and body within IDEMPOTENCY_TTL_HOURS replays the first 200 without a new ' +
      'charge. Answers are kept only for callers with a wallet: on a free Bee the key needs a valid X-Registry-Wallet-Token ' +
      '(else 400 IDEMPOTENCY_WALLET_REQUIRED).'
  }))
})

/** The headers of an execute 200, declared so that an agent reading the OpenAPI document knows them (@fastify/swagger moves them out of the body schema). */
function successHeaders (paid: boolean) {
  const header = (description: string) => ({ type: 'string', description })
  return {
    ...(paid
      ? {
          [COST_HEADER]: header('What this call cost, in the Bee\'s currency (absent on an idempotent replay, which costs nothing).'),
          [BALANCE_HEADER]: header('The wallet\'s available balance after this call (absent on an idempotent replay).')
        }
      : {}),
    [REPLAYED_HEADER]: header('"true" when this is the stored answer to an earlier request with the same Idempotency-Key.'),
    deprecation: header('Set when the Bee is deprecated: when, as @<unix seconds> (RFC 9745).'),
    sunset: header('Set when a deprecated Bee has an announced end: an HTTP date (RFC 8594).'),
    'x-request-id': header('This request\'s id: quote it when reporting a problem.')
  }
}

export function executeResponses (result: TSchema, bee?: { paid: boolean, upstream: boolean }) {
  return {
    200: { ...Honey(result), headers: successHeaders(bee === undefined || bee.paid) },
    400: ValidationErrorBody,
    ...(bee === undefined || bee.paid ? { 402: PaymentRequiredBody } : {}),
    ...(bee === undefined ? { 404: errorResponse('No Bee has this id.') } : {}),
    409: errorResponse('The Bee is inactive, or a request with this Idempotency-Key is still running.'),
    413: errorResponse('The body is larger than the configured limit.'),
    415: errorResponse('The body is not JSON.'),
    422: errorResponse('The Idempotency-Key was used with a different request.'),
    500: errorResponse('Internal failure; the hold on the wallet, if any, was voided (credited back).'),
    ...(bee === undefined || bee.paid
      ? { 503: errorResponse('HOLD_EXPIRED: the hold was released before the call finished; the answer is not served and nothing was charged.') }
      : {}),
    ...(bee === undefined || bee.upstream
      ? {
          502: errorResponse('The upstream service failed; the hold was voided (nothing charged).'),
          504: errorResponse('The upstream service timed out; the hold was voided (nothing charged).')
        }
      : {})
  }
}

/** Registers a Bee's own execute route, with its exact input and output schemas. */
export function mountBee (fastify: FastifyInstance, bee: RegisteredBee, options: { upstream: boolean }) {
  const { id, name, description, inputSchema, outputSchema } = bee.record
  const routeOptions: RouteShorthandOptions = {
    schema: {
      tags: ['execute'],
      operationId: `execute-${id}`,
      summary: `Execute ${name}`,
      description,
      security: bee.paid ? [{ walletToken: [] }] : [],
      headers: IdempotencyHeaders,
      body: inputSchema,
      response: executeResponses(outputSchema as TSchema, { paid: bee.paid, upstream: options.upstream })
    },
    config: { bee },
    preValidation: admitBee,
    preHandler: bee.paid ? [fastify.claimIdempotencyKey, fastify.chargeForCall] : [fastify.claimIdempotencyKey],
    onSend: fastify.settleIdempotencyKey
  }
  fastify.post(`/bees/${id}/execute`, routeOptions, runBee)
}
