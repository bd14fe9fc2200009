import type { CodesByStatus, ErrorCode } from '../core/error-catalog.js'
import { TOKEN_PAYMENT_REFUSALS } from '../core/execution/payment-required.js'
import { SHARED_RESPONSE } from '../core/publishing/shared-components.js'
import { ErrorBody, ValidationErrorBody, type SharedSchema } from '../core/schemas.js'

/** What any request may be refused with before its route runs (plugins/http-requirements.ts). */
export const REQUEST_CODES = ['HOST_REQUIRED'] as const satisfies readonly ErrorCode[]

/**
 * What reading a JSON body refuses, by status, on every route that reads one (plugins/json-bodies.ts,
 * plugins/content-encoding.ts, and Fastify's own refusals as plugins/errors.ts names them).
 */
export const BODY_CODES = {
  400: ['BODY_REQUIRED', 'INVALID_JSON', 'INVALID_CONTENT_LENGTH', 'INVALID_UTF8', 'NUL_CHARACTER', 'BODY_TOO_DEEP', 'INVALID_CONTENT_ENCODING'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_CHARSET', 'UNSUPPORTED_CONTENT_ENCODING']
} as const satisfies CodesByStatus

/**
 * The response schema of an error status: the shared error body (or a variant of it) by `$ref`, with the
 * codes this route can send with this status as the enum of `code`, so a client can switch on them and a
 * generator types them. The body is serialized as the shared shape; the enum only documents. A `name`
 * makes the whole response one the document lists once (see shareComponents), for refusals many routes give.
 * Each code must be one the catalog gives the status this response is listed under: test/core/error-catalog.test.ts
 * checks the document (a route's codes by status, as execute routes and Bees declare them, are checked by TypeScript).
 */
export const refusal = (description: string, codes: readonly ErrorCode[], options: { body?: SharedSchema, name?: string } = {}) => ({
  description,
  ...(options.name === undefined ? {} : { [SHARED_RESPONSE]: options.name }),
  // `error` and `message` are named again, empty, only to keep the keys in the order `error, code, message`:
  // fast-json-stringify merges a body that is itself an allOf (ValidationError, RateLimited) after this
  // object, so a lone `code` here would be written first.
  allOf: [{ $ref: (options.body ?? ErrorBody).$id }, { properties: { error: {}, code: { enum: [...new Set(codes)] }, message: {} } }]
})

/** 400 of a route that reads no body: the request's own refusals and the route's. */
export const requestRefusal = (description: string, codes: readonly ErrorCode[] = []) =>
  refusal(description, [...REQUEST_CODES, ...codes], { body: codes.includes('VALIDATION_FAILED') ? ValidationErrorBody : ErrorBody })

/** 400 of a route that reads nothing the Host header is not asked for. */
export const NO_HOST = refusal('The request has no Host header.', REQUEST_CODES, { name: 'HostRequired' })

/** 400 of a route whose answer holds links built from the Host (see baseUrlOf). */
export const BAD_HOST = refusal('The Host header is not a host name.', [...REQUEST_CODES, 'HOST_INVALID'], { name: 'HostInvalid' })

export const PAYLOAD_TOO_LARGE = refusal('The body is larger than BODY_LIMIT_BYTES (decompressed too).', BODY_CODES[413], { name: 'PayloadTooLarge' })

export const UNSUPPORTED_MEDIA_TYPE = refusal('The body is not JSON in UTF-8, or has a Content-Encoding other than gzip, deflate or br.',
  BODY_CODES[415], { name: 'UnsupportedMediaType' })

/** 400, 413 and 415 of a route that reads a JSON body, with the route's own 400 codes; a `name` lists the 400 once. */
export const bodyRefusals = (description: string, codes: readonly ErrorCode[] = [], name?: string) => ({
  400: refusal(description, [...REQUEST_CODES, ...BODY_CODES[400], ...codes], { body: ValidationErrorBody, name }),
  413: PAYLOAD_TOO_LARGE,
  415: UNSUPPORTED_MEDIA_TYPE
})

/**
 * What a call paying with a verification token may be refused with, besides a wallet's refusals: 402
 * for money and validity, 403 when the Bee is outside the token's allow-list (core/execution/token-payment.ts).
 */
export const TOKEN_PAYMENT_CODES = {
  402: Object.keys(TOKEN_PAYMENT_REFUSALS) as Array<keyof typeof TOKEN_PAYMENT_REFUSALS>,
  403: ['TOKEN_SCOPE_DENIED']
} as const satisfies CodesByStatus

/** 400, 413 and 415 of a route whose only body refusals are reading JSON: one response the document lists once. */
export const BODY_NOT_JSON = {
  400: refusal('A body was sent, and it is not JSON.', [...REQUEST_CODES, ...BODY_CODES[400]], { body: ValidationErrorBody, name: 'BodyNotJson' }),
  413: PAYLOAD_TOO_LARGE,
  415: UNSUPPORTED_MEDIA_TYPE
}

/** 400 of a route whose only refusal of the request is its own (HOST_REQUIRED): one response the document lists once. */
export const REQUEST_INVALID = refusal('The request is invalid.', REQUEST_CODES, { name: 'RequestInvalid' })

/** 400 of a listing: a filter or parameter, the limit or the cursor is invalid. One response the document lists once. */
export const PAGE_REFUSED = refusal('A parameter, the limit or the cursor is invalid.', [...REQUEST_CODES, 'VALIDATION_FAILED', 'INVALID_CURSOR'],
  { body: ValidationErrorBody, name: 'PageRefused' })

/** 401 and 403 of the admin API. */
export const ADMIN_REFUSALS = {
  401: refusal('Missing or wrong admin token.', ['UNAUTHORIZED'], { name: 'AdminTokenRequired' }),
  403: refusal('The admin API is disabled (ADMIN_TOKEN unset).', ['ADMIN_DISABLED'], { name: 'AdminDisabled' })
}

/** 401 of the routes open to publishers and the operator. */
export const PRINCIPAL_REQUIRED = refusal('Missing or unknown publisher key (or admin token).', ['UNAUTHORIZED'], { name: 'PublisherKeyRequired' })

/** 404 of every route that names a Bee. */
/** A route for a wallet's holder: its key or one of its verification tokens (see plugins/wallet-tokens.ts, requireTokenHolder). */
export const TOKEN_HOLDER_REQUIRED = refusal('No valid wallet key or token.',
  ['WALLET_TOKEN_MISSING', 'WALLET_NOT_FOUND', 'TOKEN_INVALID', 'TOKEN_EXPIRED', 'TOKEN_REVOKED'], { name: 'TokenHolderRequired' })

export const STREAMS_FULL = refusal('This instance holds STREAM_MAX_OPEN open streams: retry after Retry-After.', ['STREAMS_FULL'], { name: 'StreamsFull' })
export const BEE_NOT_FOUND = refusal('No Bee has this id (or none you manage, for a publisher).', ['BEE_NOT_FOUND'], { name: 'BeeNotFound' })
