import helmet from '@fastify/helmet'
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
 * The headers that matter most on an answer no hook sees (see frameworkErrors in plugins/errors.ts);
 * every other answer gets them, and the rest of helmet's, from the plugin below.
 */
export const baselineHeaders = {
  'content-security-policy': Object.entries(API_CSP).map(([name, values]) => `${name} ${values.join(' ')}`).join(';'),
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY'
}

/**
 * Security headers on every answer (@fastify/helmet): nosniff, no framing, and for the JSON API a CSP
 * that lets a browser do nothing with an answer but read it. Answers to a request that carried
 * credentials (Authorization or X-Registry-Wallet-Token) are `Cache-Control: no-store`, overriding any
 * caching a route set: they may hold a wallet token, a publisher key or a signing secret, or depend on
 * whose they are, and no cache between client and server may keep them. A route may name a private
 * policy instead (credentialedCacheControl).
 */
export default fp(async (fastify) => {
  await fastify.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
    frameguard: { action: 'deny' }
  })
  fastify.addHook('onSend', async (request, reply) => {
    if (request.headers.authorization !== undefined || request.headers[WALLET_HEADER] !== undefined) {
      reply.header('cache-control', reply.routeOptions.config.credentialedCacheControl ?? 'no-store')
    }
  })
}, { name: 'security-headers' })
