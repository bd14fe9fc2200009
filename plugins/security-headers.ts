import fp from 'fastify-plugin'
import { WALLET_HEADER } from '../src/core/schemas.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The Cache-Control of a credentialed answer that holds nothing secret and is the same for every
     * caller allowed to see it (a file meant for publishing): kept out of shared caches, yet the
     * client may keep it and revalidate with its ETag. Unset: no-store.
     */
    credentialedCacheControl?: string
  }
}

/**
 * The Content-Security-Policy of Swagger UI at /docs (its static files are served by @fastify/swagger-ui,
 * which sets this as its `staticCSP`): its scripts, styles and the spec it fetches come from this
 * origin and nothing may frame it. Swagger UI's bundle applies one inline style, hence 'unsafe-inline'
 * for styles (never for scripts).
 */
export const DOCS_CSP = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'connect-src': ["'self'"],
  'font-src': ["'self'", 'data:'],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'img-src': ["'self'", 'data:'],
  'object-src': ["'none'"],
  'script-src': ["'self'"],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"]
}

/** The Content-Security-Policy of every JSON answer: a browser may read it, not run or frame anything in it. */
const API_CSP = { 'default-src': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"], 'frame-ancestors': ["'none'"] }

/**
 * The security headers of every answer, built once: the set the OWASP REST Security Cheat Sheet asks of an API
 * (nosniff, no framing, a CSP that lets a browser do nothing with an answer but read it, HSTS), with
 * no-referrer and same-origin CORP. Answers no hook sees (see frameworkErrors in plugins/errors.ts) get them too.
 */
export const baselineHeaders = {
  'content-security-policy': Object.entries(API_CSP).map(([name, values]) => `${name} ${values.join(' ')}`).join(';'),
  'cross-origin-resource-policy': 'same-origin',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY'
}

/**
 * What only a browser rendering a document acts on: added to answers that are not application/* (Swagger UI,
 * the Markdown views, the OAuth pages), never to JSON, where they cost a header each and protect nothing. The
 * values are helmet's defaults, which every answer carried before.
 */
const documentHeaders = {
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0'
}

const isDocument = (contentType: unknown) => typeof contentType === 'string' && !contentType.startsWith('application/')

/**
 * Security headers: baselineHeaders on every answer, documentHeaders on the others than JSON, both sets
 * built once (helmet computed its set per request: 41–60 µs a request here, this is 2–3 µs; docs/performance.md).
 * A route or page may override one (the consent pages their own CSP and Referrer-Policy, Swagger UI its CSP).
 * Answers to a request that carried credentials (Authorization or X-Registry-Wallet-Token) are
 * `Cache-Control: no-store`, overriding any caching a route set: they may hold a wallet token, a publisher key or
 * a signing secret, or depend on whose they are, and no cache between client and server may keep them. A route
 * may name a private policy instead (credentialedCacheControl).
 */
export default fp(async (fastify) => {
  fastify.addHook('onRequest', (_request, reply, done) => {
    reply.headers(baselineHeaders)
    done()
  })
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (isDocument(reply.getHeader('content-type'))) reply.headers(documentHeaders)
    if (request.headers.authorization !== undefined || request.headers[WALLET_HEADER] !== undefined) {
      reply.header('cache-control', reply.routeOptions.config.credentialedCacheControl ?? 'no-store')
    }
    done(null, payload)
  })
}, { name: 'security-headers' })
