import { ErrorBody, ValidationErrorBody, type SharedSchema } from '../core/schemas.js'

/** What any request may be refused with before its route runs (plugins/http-requirements.ts). */
export const REQUEST_CODES = ['HOST_REQUIRED'] as const

/**
 * What reading a JSON body refuses, by status, on every route that reads one (plugins/json-bodies.ts,
 * plugins/content-encoding.ts, and Fastify's own refusals as plugins/errors.ts names them).
 */
export const BODY_CODES = {
  400: ['BODY_REQUIRED', 'INVALID_JSON', 'INVALID_CONTENT_LENGTH', 'INVALID_UTF8', 'NUL_CHARACTER', 'BODY_TOO_DEEP', 'INVALID_CONTENT_ENCODING'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_CHARSET', 'UNSUPPORTED_CONTENT_ENCODING']
} as const

/**
 * The response schema of an error status: the shared error body (or a variant of it) by `$ref`, with the
 * codes this route can send with this status as the enum of `code`, so a client can switch on them and a
 * generator types them. The body is serialized as the shared shape; the enum only documents.
 */
export const refusal = (description: string, codes: readonly string[], body: SharedSchema = ErrorBody) => ({
  description,
  allOf: [{ $ref: body.$id }, { properties: { code: { enum: [...new Set(codes)] } } }]
})

/** 400 of a route that reads no body: the request's own refusals and the route's. */
export const requestRefusal = (description: string, codes: readonly string[] = []) =>
  refusal(description, [...REQUEST_CODES, ...codes], codes.includes('VALIDATION_FAILED') ? ValidationErrorBody : ErrorBody)

/** 400, 413 and 415 of a route that reads a JSON body, with the route's own 400 codes. */
export const bodyRefusals = (description: string, codes: readonly string[] = []) => ({
  400: refusal(description, [...REQUEST_CODES, ...BODY_CODES[400], ...codes], ValidationErrorBody),
  413: refusal('The body is larger than BODY_LIMIT_BYTES (decompressed too).', BODY_CODES[413]),
  415: refusal('The body is not JSON in UTF-8, or has a Content-Encoding other than gzip, deflate or br.', BODY_CODES[415])
})
