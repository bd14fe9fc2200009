import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { Type, type TSchema } from 'typebox'
import type { Honey as HoneyEnvelope } from '../core/execution/execution.js'
import { fromMicros } from '../core/money.js'
import type { RegisteredBee } from '../core/registry.js'
import { AnyResult, BeeIdParams, ErrorBody, Honey, PaymentRequiredBody, ValidationErrorBody } from '../core/schemas.js'
import { BALANCE_HEADER, COST_HEADER, REPLAYED_HEADER } from './execution-headers.js'
import { walletTokenOf } from './wallet-token.js'

/**
 * preValidation of every execute route, the core's admission: finds the Bee (404 when unknown, before
 * the body is even looked at), refuses an inactive one with 409, and marks a deprecated one with
 * Deprecation/Sunset.
 */
async function admitBee (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const admitted = request.server.executor.admit({
    bee: request.routeOptions.config.bee ?? (request.params as { id: string }).id,
    walletToken: walletTokenOf(request),
    requestId: request.id,
    log: request.log
  })
  if (!admitted.ok) throw admitted.error
  request.execution = admitted.execution
  const { status, sunsetAt, lastUpdated } = admitted.execution.bee.record
  if (status === 'deprecated') {
    // RFC 9745: when it was deprecated, as a structured-field date; RFC 8594: when it goes away.
    reply.header('deprecation', `@${Math.floor(Date.parse(lastUpdated) / 1000)}`)
    if (sunsetAt !== null) reply.header('sunset', new Date(sunsetAt).toUTCString())
  }
}

/** preHandler of the generic route, whose route schema cannot know the Bee: the core validates the body. */
async function validateBody (request: FastifyRequest): Promise<void> {
  if (request.execution === null) return
  const valid = request.server.executor.validate(request.execution, request.body)
  if (!valid.ok) throw valid.error
}

/**
 * The handler: the core runs the Bee and sells its answer. The route's own serializer makes the
 * bytes, so they are exactly what returning the object would send, and the stored replay is them.
 */
async function runBee (request: FastifyRequest, reply: FastifyReply) {
  const execution = request.execution as NonNullable<FastifyRequest['execution']>
  const sold = await request.server.executor.run(execution, request.body, (honey: HoneyEnvelope) => reply.serialize(honey) as string)
  if (!sold.ok) throw sold.error
  if (sold.charge !== null) {
    reply.header(COST_HEADER, fromMicros(sold.charge.micros))
    reply.header(BALANCE_HEADER, fromMicros(sold.charge.balanceMicros))
  }
  return reply.type('application/json; charset=utf-8').send(sold.body)
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
    deprecation: header('Set when the Bee is deprecated: when, as @ and Unix seconds, e.g. @1767225600 (RFC 9745).'),
    sunset: header('Set when a deprecated Bee has an announced end: an HTTP date (RFC 8594).'),
    'x-request-id': header('This request\'s id: quote it when reporting a problem.')
  }
}

function executeResponses (result: TSchema, bee?: { paid: boolean, upstream: boolean }) {
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

/** The hooks every execute route runs, in the pipeline's order; `validate` only where the route schema cannot. */
function pipelineHooks (fastify: FastifyInstance, options: { validate: boolean, paid: boolean }): RouteShorthandOptions {
  return {
    preValidation: admitBee,
    preHandler: [
      ...(options.validate ? [validateBody] : []),
      fastify.claimIdempotencyKey,
      ...(options.paid ? [fastify.chargeForCall] : [])
    ],
    onSend: fastify.settleIdempotencyKey
  }
}

/** Registers a Bee's own execute route, with its exact input and output schemas. */
export function mountBee (fastify: FastifyInstance, bee: RegisteredBee, options: { upstream: boolean }) {
  const { id, name, description, inputSchema, outputSchema } = bee.record
  fastify.post(`/bees/${id}/execute`, {
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
    ...pipelineHooks(fastify, { validate: false, paid: bee.paid })
  }, runBee)
}

/** Registers the execute route of any Bee by id: the body is validated by the core, against the Bee it names. */
export function mountGenericExecute (fastify: FastifyInstance) {
  fastify.post('/bees/:id/execute', {
    schema: {
      tags: ['execute'],
      operationId: 'execute-bee',
      summary: 'Execute any Bee by id',
      description: 'Runs the Bee with the JSON body as its input (see the Bee\'s inputSchema) and answers Honey. ' +
        'Each active Bee also has its own path in this document, with its exact schemas.',
      security: [{}, { walletToken: [] }],
      params: BeeIdParams,
      headers: IdempotencyHeaders,
      body: Type.Object({}, { additionalProperties: true, description: 'Input following the Bee\'s inputSchema.' }),
      response: executeResponses(AnyResult)
    },
    // Payment is the core's to decide here: a free Bee passes its step untouched.
    ...pipelineHooks(fastify, { validate: true, paid: true })
  }, runBee)
}
