import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify'
import { Type, type TSchema } from 'typebox'
import type { Honey as HoneyEnvelope } from '../core/execution/execution.js'
import { fromMicros } from '../core/money.js'
import { PROXY_ERRORS } from '../core/publishing/proxy.js'
import type { ErrorCodes, RegisteredBee } from '../core/registry.js'
import { AnyResult, BeeIdParams, Honey, PaymentRequiredBody, ValidationErrorBody, type SharedSchema } from '../core/schemas.js'
import { BALANCE_HEADER, COST_HEADER, REPLAYED_HEADER } from './execution-headers.js'
import { BEE_NOT_FOUND, BODY_CODES, PAYLOAD_TOO_LARGE, REQUEST_CODES, refusal, UNSUPPORTED_MEDIA_TYPE } from './refusals.js'
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

/**
 * The codes each error status of an execute route can carry: for a Bee, what its pipeline and its own
 * upstream can answer; without one (the generic route), what any Bee's can. A remote Bee's failures are
 * the proxy's, and its bad output is its 502, not our 500.
 */
export function executeErrorCodes (bee: RegisteredBee | undefined, upstream: ErrorCodes): ErrorCodes {
  const paid = bee === undefined || bee.paid
  const codes: Record<number, readonly string[]> = {
    400: [...REQUEST_CODES, ...BODY_CODES[400], 'VALIDATION_FAILED', 'INVALID_IDEMPOTENCY_KEY', 'IDEMPOTENCY_WALLET_REQUIRED'],
    409: ['BEE_INACTIVE', 'IDEMPOTENCY_IN_FLIGHT'],
    413: BODY_CODES[413],
    415: BODY_CODES[415],
    422: ['IDEMPOTENCY_KEY_REUSED'],
    500: bee?.remote === true ? ['INTERNAL_ERROR'] : ['INTERNAL_ERROR', 'BEE_OUTPUT_INVALID'],
    ...upstream
  }
  if (paid) {
    codes[402] = ['WALLET_TOKEN_MISSING', 'WALLET_NOT_FOUND', 'WALLET_FROZEN', 'CURRENCY_MISMATCH', 'INSUFFICIENT_FUNDS']
    codes[503] = ['HOLD_EXPIRED']
  }
  if (bee === undefined) codes[404] = ['BEE_NOT_FOUND']
  return codes
}

/** The refusals an execute route gives as other routes do. */
const COMMON_REFUSALS: Record<number, object> = { 404: BEE_NOT_FOUND, 413: PAYLOAD_TOO_LARGE, 415: UNSUPPORTED_MEDIA_TYPE }

/**
 * What each other error status of an execute route means, its body when it is not the plain error, and the
 * name of the response when every execute route gives the same (see refusal).
 */
const EXECUTE_ERRORS: Record<number, { description: string, body?: SharedSchema, name?: string }> = {
  400: {
    description: 'The body is missing, not JSON, or does not match the Bee\'s inputSchema; or the Idempotency-Key is invalid.',
    body: ValidationErrorBody,
    name: 'ExecuteBadRequest'
  },
  402: {
    description: 'The call needs a funded wallet: transactionDetails says what it costs and how to pay.',
    body: PaymentRequiredBody,
    name: 'PaymentRequired'
  },
  409: { description: 'The Bee is inactive, or a request with this Idempotency-Key is still running.', name: 'ExecuteConflict' },
  422: { description: 'The Idempotency-Key was used with a different request.', name: 'IdempotencyKeyReused' },
  500: { description: 'Internal failure; the hold on the wallet, if any, was voided (credited back).', name: 'ExecuteFailed' },
  502: { description: 'The upstream service failed, or answered what the Bee\'s outputSchema refuses; the hold was voided (nothing charged).' },
  503: { description: 'The hold was released before the call finished; the answer is not served and nothing was charged.', name: 'HoldExpired' },
  504: { description: 'The upstream service timed out; the hold was voided (nothing charged).' }
}

function executeResponses (result: TSchema, bee: RegisteredBee | undefined, upstream: ErrorCodes) {
  const refusals = Object.entries(executeErrorCodes(bee, upstream)).map(([status, codes]) => {
    const { description, ...options } = EXECUTE_ERRORS[Number(status)] ?? { description: '' }
    return [status, COMMON_REFUSALS[Number(status)] ?? refusal(description, codes, options)]
  })
  return {
    200: { ...Honey(result), headers: successHeaders(bee === undefined || bee.paid) },
    ...Object.fromEntries(refusals)
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
export function mountBee (fastify: FastifyInstance, bee: RegisteredBee) {
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
      response: executeResponses(outputSchema as TSchema, bee, bee.definition.errors ?? {})
    },
    config: { bee },
    ...pipelineHooks(fastify, { validate: false, paid: bee.paid })
  }, runBee)
}

/** What any Bee's upstream can fail with: the built-ins' (registered before this route) and the proxy's, by status. */
function anyUpstream (fastify: FastifyInstance): ErrorCodes {
  const codes: Record<number, string[]> = {}
  for (const errors of [...fastify.registry.all().map((bee) => bee.definition.errors ?? {}), PROXY_ERRORS]) {
    for (const [status, list] of Object.entries(errors)) codes[Number(status)] = [...new Set([...codes[Number(status)] ?? [], ...list])]
  }
  return codes
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
      response: executeResponses(AnyResult, undefined, anyUpstream(fastify))
    },
    // Payment is the core's to decide here: a free Bee passes its step untouched.
    ...pipelineHooks(fastify, { validate: true, paid: true })
  }, runBee)
}
