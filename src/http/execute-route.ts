import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteShorthandOptions } from 'fastify'
import { Type, type TSchema } from 'typebox'
import type { CodesByStatus } from '../core/error-catalog.js'
import type { HoneySerializer } from '../core/execution/execution.js'
import { fromMicros } from '../core/money.js'
import { PROXY_ERRORS } from '../core/publishing/proxy.js'
import type { ErrorCodes, RegisteredBee } from '../core/registry.js'
import { AnyResult, BeeIdParams, Honey, PaymentRequiredBody, ValidationErrorBody, type SharedSchema } from '../core/schemas.js'
import { PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER } from '../core/x402/schemas.js'
import { baseUrlOf } from './base-url.js'
import { BALANCE_HEADER, COST_HEADER, REPLAYED_HEADER } from './execution-headers.js'
import { endWithStep, whenStepped } from './hook-steps.js'
import { BEE_NOT_FOUND, BODY_CODES, PAYLOAD_TOO_LARGE, REQUEST_CODES, refusal, TOKEN_PAYMENT_CODES, UNSUPPORTED_MEDIA_TYPE } from './refusals.js'
import { EXECUTE_RATE_LIMIT_CODES, executeRateLimitedResponse } from './rate-limited-response.js'
import { walletTokenOf } from './wallet-token.js'

/** The x402 payment a request presents in PAYMENT-SIGNATURE, decoded; undefined when x402 is off or none was sent. */
function x402PaymentOf (request: FastifyRequest): unknown {
  const header = request.headers[PAYMENT_SIGNATURE_HEADER]
  const { x402 } = request.server
  if (x402 === null || typeof header !== 'string' || header.length === 0) return undefined
  return x402.decodeSignature(header)
}

/** This call's URL, as x402 offers name the resource; a request whose Host cannot be printed is named by its path. */
function resourceOf (request: FastifyRequest): string {
  try {
    return `${baseUrlOf(request)}${request.url}`
  } catch {
    return request.url
  }
}

/**
 * preValidation of every execute route, the core's admission: finds the Bee (404 when unknown, before
 * the body is even looked at), refuses an inactive one with 409, and marks a deprecated one with
 * Deprecation/Sunset. The pipeline's hooks are callback hooks, not async ones: a step that needs no
 * promise (a loaded Bee, no Idempotency-Key, no limit of the Bee's own) passes on at once.
 */
function admitBee (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const admitting = request.server.executor.admit({
    bee: request.routeOptions.config.bee ?? (request.params as { id: string }).id,
    walletToken: walletTokenOf(request),
    x402Payment: x402PaymentOf(request),
    // Named only where x402 can offer anything.
    resource: request.server.x402 === null ? undefined : resourceOf(request),
    requestId: request.id,
    log: request.log
  })
  whenStepped(admitting, done, (admitted) => {
    if (!admitted.ok) {
      done(admitted.error)
      return
    }
    request.execution = admitted.execution
    const { status, sunsetAt, lastUpdated } = admitted.execution.bee.record
    if (status === 'deprecated') {
      // RFC 9745: when it was deprecated, as a structured-field date; RFC 8594: when it goes away.
      reply.header('deprecation', `@${Math.floor(Date.parse(lastUpdated) / 1000)}`)
      if (sunsetAt !== null) reply.header('sunset', new Date(sunsetAt).toUTCString())
    }
    done()
  })
}

/** preHandler of the generic route, whose route schema cannot know the Bee: the core validates the body. */
function validateBody (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.execution === null) done()
  else endWithStep(request.server.executor.validate(request.execution, request.body), done)
}

/** preHandler after the idempotency claim (a replay never counts) and before the hold: the Bee's own rate limit. */
function limitBee (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.execution === null) done()
  else endWithStep(request.server.executor.limit(request.execution), done)
}

/**
 * The handler: the core runs the Bee and sells its answer. The route's own serializer (the reply's) makes the
 * bytes, so they are exactly what returning the object would send, and the stored replay is them. They are
 * returned, not sent: Fastify sends a returned string as it is (the type says JSON), where a returned reply
 * would have the handler's promise wait for the response to finish (Reply.then), listeners and all.
 */
async function runBee (request: FastifyRequest, reply: FastifyReply): Promise<string> {
  const execution = request.execution as NonNullable<FastifyRequest['execution']>
  // The route's serializer is fast-json-stringify's, which makes a string (Fastify's type allows any serializer's buffers too).
  const sold = await request.server.executor.run(execution, request.body, reply as FastifyReply & HoneySerializer)
  if (!sold.ok) throw sold.error
  if (sold.charge !== null) {
    reply.header(COST_HEADER, fromMicros(sold.charge.micros))
    reply.header(BALANCE_HEADER, fromMicros(sold.charge.balanceMicros))
  }
  if (sold.payment !== null) reply.header(PAYMENT_RESPONSE_HEADER, request.server.x402?.encodeResponse(sold.payment))
  reply.type('application/json; charset=utf-8')
  return sold.body
}

/** Response schemas for every status an execute route can send. */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    description: 'Makes a retry safe: the same key and body within IDEMPOTENCY_TTL_HOURS replays the first 200 without a new ' +
      'charge. Answers are kept only for callers with a wallet: on a free Bee the key needs a valid X-Registry-Wallet-Token ' +
      '(else 400 IDEMPOTENCY_WALLET_REQUIRED).'
  }))
})

const header = (description: string) => ({ type: 'string', description })

/** The request headers of an execute route: PAYMENT-SIGNATURE only where x402 is on. */
function requestHeaders (x402: boolean) {
  if (!x402) return IdempotencyHeaders
  return Type.Object({
    ...IdempotencyHeaders.properties,
    [PAYMENT_SIGNATURE_HEADER]: Type.Optional(Type.String({
      description: 'x402 v2: a signed payment (base64 JSON PaymentPayload) answering the offer in a 402\'s PAYMENT-REQUIRED, ' +
        'instead of a wallet token. Verified before the Bee runs, settled only after it succeeded; the same payment ' +
        'sent again for the same call replays the answer and is never settled twice.'
    }))
  })
}

/** The headers of an execute 200, declared so that an agent reading the OpenAPI document knows them (@fastify/swagger moves them out of the body schema). */
function successHeaders (paid: boolean, x402: boolean) {
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
    'x-request-id': header('This request\'s id: quote it when reporting a problem.'),
    ...(paid && x402
      ? { [PAYMENT_RESPONSE_HEADER]: header('x402 v2: the settlement of the payment sent in PAYMENT-SIGNATURE (base64 JSON SettleResponse: success, transaction, network, payer).') }
      : {})
  }
}

/**
 * The codes each error status of an execute route can carry: for a Bee, what its pipeline and its own
 * upstream can answer; without one (the generic route), what any Bee's can. A remote Bee's failures are
 * the proxy's, and its bad output is its 502, not our 500.
 */
export function executeErrorCodes (bee: RegisteredBee | undefined, upstream: ErrorCodes, x402: boolean): ErrorCodes {
  const paid = bee === undefined || bee.paid
  const codes: CodesByStatus = {
    400: [...REQUEST_CODES, ...BODY_CODES[400], 'VALIDATION_FAILED', 'INVALID_IDEMPOTENCY_KEY', 'IDEMPOTENCY_WALLET_REQUIRED'],
    409: ['BEE_INACTIVE', 'IDEMPOTENCY_IN_FLIGHT'],
    413: BODY_CODES[413],
    415: BODY_CODES[415],
    422: ['IDEMPOTENCY_KEY_REUSED'],
    429: EXECUTE_RATE_LIMIT_CODES,
    500: bee?.remote === true ? ['INTERNAL_ERROR'] : ['INTERNAL_ERROR', 'BEE_OUTPUT_INVALID'],
    ...upstream
  }
  if (paid) {
    codes[402] = ['WALLET_TOKEN_MISSING', 'WALLET_NOT_FOUND', 'WALLET_FROZEN', 'CURRENCY_MISMATCH', 'INSUFFICIENT_FUNDS', 'SUBSCRIPTION_REQUIRED',
      'SUBSCRIPTION_QUOTA_EXHAUSTED', ...TOKEN_PAYMENT_CODES[402]]
    codes[403] = TOKEN_PAYMENT_CODES[403]
    codes[503] = ['HOLD_EXPIRED']
  }
  if (paid && x402) {
    codes[402] = [...codes[402] ?? [], 'X402_PAYMENT_INVALID', 'X402_PAYMENT_USED', 'X402_SETTLEMENT_FAILED']
    codes[409] = [...codes[409] ?? [], 'X402_PAYMENT_IN_FLIGHT']
    codes[502] = [...codes[502] ?? [], 'X402_SETTLEMENT_UNKNOWN']
    codes[503] = [...codes[503] ?? [], 'X402_FACILITATOR_UNAVAILABLE']
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
    description: 'The call needs a funded wallet (or a valid token with enough cap left): transactionDetails says what it costs and how to pay.',
    body: PaymentRequiredBody,
    name: 'PaymentRequired'
  },
  403: { description: 'The token may not pay for this Bee.', name: 'TokenScopeDenied' },
  409: { description: 'The Bee is inactive, or a request with this Idempotency-Key (or x402 payment) is still running.', name: 'ExecuteConflict' },
  422: { description: 'The Idempotency-Key was used with a different request.', name: 'IdempotencyKeyReused' },
  500: { description: 'Internal failure; the hold on the wallet, if any, was voided (credited back).', name: 'ExecuteFailed' },
  502: { description: 'The upstream service failed, or answered what the Bee\'s outputSchema refuses; the hold was voided (nothing charged).' },
  503: {
    description: 'The hold was released before the call finished, or the x402 facilitator cannot be reached: the answer is not served ' +
      'and nothing was charged.',
    name: 'ExecuteUnavailable'
  },
  504: { description: 'The upstream service timed out; the hold was voided (nothing charged).' }
}

/** x402's offer on a 402 (a distinct shared response: the same status carries one more header). */
const X402_OFFER_HEADERS = {
  [PAYMENT_REQUIRED_HEADER]: header('x402 v2: an exact offer for this call (base64 JSON PaymentRequired: x402Version, error, resource, ' +
    'accepts), when the Bee is priced in USD and the facilitator answers.')
}

function executeResponses (result: TSchema, bee: RegisteredBee | undefined, upstream: ErrorCodes, x402: boolean) {
  const paid = bee === undefined || bee.paid
  const refusals = Object.entries(executeErrorCodes(bee, upstream, x402)).map(([status, codes]) => {
    const { description, ...options } = EXECUTE_ERRORS[Number(status)] ?? { description: '' }
    if (status === '429') return [status, executeRateLimitedResponse]
    if (status === '402' && x402) {
      return [status, { ...refusal(description, codes, { ...options, name: 'PaymentRequiredX402' }), headers: X402_OFFER_HEADERS }]
    }
    return [status, COMMON_REFUSALS[Number(status)] ?? refusal(description, codes, options)]
  })
  return {
    200: { ...Honey(result), headers: successHeaders(paid, x402) },
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
      limitBee,
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
      headers: requestHeaders(bee.paid && fastify.x402 !== null),
      body: inputSchema,
      response: executeResponses(outputSchema as TSchema, bee, bee.definition.errors ?? {}, fastify.x402 !== null)
    },
    config: { bee },
    ...pipelineHooks(fastify, { validate: false, paid: bee.paid })
  }, runBee)
}

/** What any Bee's upstream can fail with: the built-ins' (registered before this route) and the proxy's (every published Bee's), by status. */
function anyUpstream (fastify: FastifyInstance): ErrorCodes {
  const codes: Record<number, string[]> = {}
  for (const errors of [...fastify.registry.builtins().map((bee) => bee.definition.errors ?? {}), PROXY_ERRORS]) {
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
        'A built-in Bee also has its own path in this document; every Bee\'s exact schemas are in its own document, ' +
        'GET /api/bees/{id}/openapi.json.',
      security: [{}, { walletToken: [] }],
      params: BeeIdParams,
      headers: requestHeaders(fastify.x402 !== null),
      body: Type.Object({}, { additionalProperties: true, description: 'Input following the Bee\'s inputSchema.' }),
      response: executeResponses(AnyResult, undefined, anyUpstream(fastify), fastify.x402 !== null)
    },
    // Payment is the core's to decide here: a free Bee passes its step untouched.
    ...pipelineHooks(fastify, { validate: true, paid: true })
  }, runBee)
}
