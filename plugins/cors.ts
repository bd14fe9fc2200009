import cors from '@fastify/cors'
import fp from 'fastify-plugin'
import { WALLET_HEADER } from '../src/core/schemas.js'
import { commaList } from '../src/core/comma-list.js'
import { BALANCE_HEADER, COST_HEADER, IDEMPOTENCY_HEADER, REPLAYED_HEADER } from '../src/http/execution-headers.js'

/**
 * Response headers a page may read: the charge, the request id, a Bee's retirement, and those of
 * x402 and rate limiting (exposing a header an answer does not carry is harmless).
 */
const EXPOSED_HEADERS = [
  COST_HEADER, BALANCE_HEADER, REPLAYED_HEADER, 'X-Request-Id', 'Deprecation', 'Sunset',
  'PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'
]

/** Request headers a page may send: the API's own, x402's payment, and those of MCP's Streamable HTTP. */
const ALLOWED_HEADERS = [
  'content-type', 'accept', 'authorization', 'x-request-id', WALLET_HEADER, IDEMPOTENCY_HEADER,
  'PAYMENT-SIGNATURE', 'mcp-protocol-version', 'mcp-session-id'
]

/**
 * CORS for the origins in CORS_ORIGINS (none: the plugin adds nothing). A listed origin's preflight is
 * 204 on any path, answered in onRequest before credentials are checked (a browser sends none with it);
 * a request from any other origin gets no CORS header at all and is answered as without CORS.
 * No credentials mode: the API authenticates with headers, never cookies.
 *
 * helmet's `Cross-Origin-Resource-Policy: same-origin` stays: CORP only governs no-cors loads (`<img>`,
 * `<script>`), not a page's fetch in cors mode, which CORS alone decides (Fetch standard, CORP check).
 */
export default fp(async (fastify) => {
  const origins = new Set(commaList(fastify.config.CORS_ORIGINS))
  if (origins.size === 0) return
  await fastify.register(cors, {
    // A function rather than the list: with a list, @fastify/cors would still answer other origins'
    // preflights and expose headers to them, only without Access-Control-Allow-Origin.
    origin: (origin, callback) => { callback(null, origin !== undefined && origins.has(origin)) },
    methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    // Strict mode answers a listed origin's OPTIONS without Access-Control-Request-Method with a text/plain 400.
    strictPreflight: false,
    maxAge: 600
  })
}, { name: 'cors', dependencies: ['config', 'errors'] })
