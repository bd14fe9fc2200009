import type { FastifyInstance } from 'fastify'
import { Type, type TSchema } from 'typebox'
import type { CodesByStatus, ErrorCode } from '../../core/error-catalog.js'
import { PROXY_ERRORS } from '../../core/publishing/proxy.js'
import type { ErrorCodes, RegisteredBee } from '../../core/registry.js'
import { Honey, PaymentRequiredBody, RateLimitedBody, ValidationErrorBody, type SharedSchema } from '../../core/schemas.js'
import { PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER } from '../../core/x402/schemas.js'
import { BALANCE_HEADER, BEE_VERSION_HEADER, COST_HEADER, REPLAYED_HEADER } from '../execution-headers.js'
import { BODY_CODES, PAYLOAD_TOO_LARGE, REQUEST_CODES, refusal, TOKEN_PAYMENT_CODES, UNSUPPORTED_MEDIA_TYPE } from '../refusals.js'
import { EXECUTE_RATE_LIMIT_CODES, executeRateLimitedResponse } from '../rate-limited-response.js'

/* The request headers and the response schemas of the execute routes: every status they can send, and its codes. */

/** The request headers of every execute route. */
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    description: 'Makes a retry safe: the same key and body within IDEMPOTENCY_TTL_HOURS replays the first 200 without a new ' +
      'charge. Answers are kept only for callers with a wallet: on a free Bee the key needs a valid X-Registry-Wallet-Token ' +
      '(else 400 IDEMPOTENCY_WALLET_REQUIRED).'
  })),
  [BEE_VERSION_HEADER]: Type.Optional(Type.String({
    maxLength: 50,
    description: 'Pins the Bee\'s version: a major (1), a minor (1.2) or an exact version (1.2.3); the highest matching version ' +
      'answers, validating the body against its own inputSchema. Absent: the latest. None matching: 404 BEE_VERSION_NOT_FOUND.'
  }))
})

const header = (description: string) => ({ type: 'string', description })

/** The request headers of an execute route: PAYMENT-SIGNATURE only where x402 is on. */
export function requestHeaders (x402: boolean) {
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
    [BEE_VERSION_HEADER]: header('The Bee\'s version that answered: the latest, or the highest matching the Bee-Version sent.'),
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
    400: [...REQUEST_CODES, ...BODY_CODES[400], 'VALIDATION_FAILED', 'INVALID_IDEMPOTENCY_KEY', 'IDEMPOTENCY_WALLET_REQUIRED', 'INVALID_VERSION'],
    409: ['BEE_INACTIVE', 'IDEMPOTENCY_IN_FLIGHT'],
    413: BODY_CODES[413],
    415: BODY_CODES[415],
    422: ['IDEMPOTENCY_KEY_REUSED'],
    429: EXECUTE_RATE_LIMIT_CODES,
    500: bee?.remote === true ? ['INTERNAL_ERROR'] : ['INTERNAL_ERROR', 'BEE_OUTPUT_INVALID']
  }
  // Added to, not replaced: a run's codes join the pipeline's own 400 and 429.
  const byStatus = codes as Record<number, readonly ErrorCode[]>
  for (const [status, list] of Object.entries(upstream)) byStatus[Number(status)] = [...byStatus[Number(status)] ?? [], ...list]
  if (paid) {
    codes[402] = ['WALLET_TOKEN_MISSING', 'WALLET_NOT_FOUND', 'WALLET_FROZEN', 'CURRENCY_MISMATCH', 'INSUFFICIENT_FUNDS', 'SUBSCRIPTION_REQUIRED',
      'SUBSCRIPTION_QUOTA_EXHAUSTED', ...TOKEN_PAYMENT_CODES[402]]
    codes[403] = TOKEN_PAYMENT_CODES[403]
    codes[503] = [...codes[503] ?? [], 'HOLD_EXPIRED']
  }
  if (paid && x402) {
    codes[402] = [...codes[402] ?? [], 'X402_PAYMENT_INVALID', 'X402_PAYMENT_USED', 'X402_SETTLEMENT_FAILED']
    codes[409] = [...codes[409] ?? [], 'X402_PAYMENT_IN_FLIGHT']
    codes[502] = [...codes[502] ?? [], 'X402_SETTLEMENT_UNKNOWN']
    codes[503] = [...codes[503] ?? [], 'X402_FACILITATOR_UNAVAILABLE']
  }
  codes[404] = bee === undefined ? ['BEE_NOT_FOUND', 'BEE_VERSION_NOT_FOUND'] : ['BEE_VERSION_NOT_FOUND']
  return codes
}

/** The refusals an execute route gives as other routes do. */
const COMMON_REFUSALS: Record<number, object> = { 413: PAYLOAD_TOO_LARGE, 415: UNSUPPORTED_MEDIA_TYPE }

/** 404: of the generic route, an unknown Bee or version; of a Bee's own route, a version it does not have. */
const EXECUTE_NOT_FOUND = refusal('No Bee has this id, or none of its versions matches Bee-Version.', ['BEE_NOT_FOUND', 'BEE_VERSION_NOT_FOUND'], { name: 'ExecuteNotFound' })
const VERSION_NOT_FOUND = refusal('None of the Bee\'s versions matches Bee-Version.', ['BEE_VERSION_NOT_FOUND'], { name: 'BeeVersionNotFound' })

/**
 * What each other error status of an execute route means, its body when it is not the plain error, and the
 * name of the response when every execute route gives the same (see refusal).
 */
const EXECUTE_ERRORS: Record<number, { description: string, body?: SharedSchema, name?: string }> = {
  400: {
    description: 'The body is missing, not JSON, or does not match the Bee\'s inputSchema; or the Idempotency-Key or Bee-Version is invalid.',
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

export function executeResponses (result: TSchema, bee: RegisteredBee | undefined, upstream: ErrorCodes, x402: boolean) {
  const paid = bee === undefined || bee.paid
  const refusals = Object.entries(executeErrorCodes(bee, upstream, x402)).map(([status, codes]) => {
    const { description, ...options } = EXECUTE_ERRORS[Number(status)] ?? { description: '' }
    if (status === '429') return [status, codes.length === EXECUTE_RATE_LIMIT_CODES.length ? executeRateLimitedResponse : { ...executeRateLimitedResponse, ...refusal(executeRateLimitedResponse.description, codes, { body: RateLimitedBody }) }]
    if (status === '404') return [status, bee === undefined ? EXECUTE_NOT_FOUND : VERSION_NOT_FOUND]
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

/** What any Bee's upstream can fail with: the built-ins' (registered before this route) and the proxy's (every published Bee's), by status. */
export function anyUpstream (fastify: FastifyInstance): ErrorCodes {
  const codes: Record<number, string[]> = {}
  for (const errors of [...fastify.registry.builtins().map((bee) => bee.definition.errors ?? {}), PROXY_ERRORS]) {
    for (const [status, list] of Object.entries(errors)) codes[Number(status)] = [...new Set([...codes[Number(status)] ?? [], ...list])]
  }
  return codes
}
