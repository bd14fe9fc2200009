import type { Server } from 'node:http'
import type { FastifyHttpOptions, FastifyInstance } from 'fastify'
import builtInBees from '../bees/index.js'
import auth from '../plugins/auth.js'
import beeHealth from '../plugins/bee-health.js'
import catalog from '../plugins/catalog.js'
import compress from '../plugins/compress.js'
import configPlugin from '../plugins/config.js'
import contentEncoding from '../plugins/content-encoding.js'
import cors from '../plugins/cors.js'
import executor from '../plugins/executor.js'
import errors, { clientErrorHandler, frameworkErrors } from '../plugins/errors.js'
import health from '../plugins/health.js'
import holdSweeper from '../plugins/hold-sweeper.js'
import httpRequirements from '../plugins/http-requirements.js'
import jsonBodies from '../plugins/json-bodies.js'
import idempotencyPurge from '../plugins/idempotency-purge.js'
import ledger from '../plugins/ledger.js'
import loadShedding from '../plugins/load-shedding.js'
import metrics from '../plugins/metrics.js'
import openapi from '../plugins/openapi.js'
import rateLimit from '../plugins/rate-limit.js'
import redis from '../plugins/redis.js'
import preparations from '../plugins/preparations.js'
import runs from '../plugins/runs.js'
import registry from '../plugins/registry.js'
import securityHeaders from '../plugins/security-headers.js'
import sharedSchemas from '../plugins/shared-schemas.js'
import tracing from '../plugins/tracing.js'
import accessLog, { OneLineRequestLog, requestIdOf } from '../plugins/access-log.js'
import validation from '../plugins/validation.js'
import warmUp from '../plugins/warm-up.js'
import walletTokens from '../plugins/wallet-tokens.js'
import oauth from '../plugins/oauth.js'
import x402 from '../plugins/x402.js'
import type { Config } from './config.js'
import a2aRoutes from './http/routes/a2a.js'
import beeRoutes from './http/routes/bees.js'
import beeOpenApiRoutes from './http/routes/bee-openapi.js'
import earningsRoutes from './http/routes/earnings.js'
import llmsRoutes from './http/routes/llms.js'
import mcpRoutes from './http/routes/mcp.js'
import oauthRoutes from './http/routes/oauth.js'
import oauthConsentRoutes from './http/routes/oauth-consent.js'
import preparationRoutes from './http/routes/preparations.js'
import runRoutes from './http/routes/runs.js'
import credentialRoutes from './http/routes/credentials.js'
import publisherRoutes from './http/routes/publishers.js'
import publishingRoutes from './http/routes/publishing.js'
import importRoutes from './http/routes/imports.js'
import subscriptionRoutes from './http/routes/subscriptions.js'
import walletHolderRoutes from './http/routes/wallet.js'
import walletAdminRoutes from './http/routes/wallets.js'
import walletTokenRoutes from './http/routes/wallet-tokens.js'
import jwksRoutes from './http/routes/jwks.js'
import x402Routes from './http/routes/x402.js'
import { lazySerializers } from './http/lazy-compilers.js'

export interface AppOptions {
  config: Config
}

/** Server options that must be set when the Fastify instance is created (they cannot come from a plugin). */
export function serverOptions (config: Config): FastifyHttpOptions<Server> {
  return {
    bodyLimit: config.BODY_LIMIT_BYTES,
    // Fastify's default is no limit: a client that sends less body than its Content-Length would hold its
    // connection forever. Node enforces the limit when it checks its connections, so check often enough for the
    // limit to hold within a tenth.
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: Math.min(60_000, config.REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(config.REQUEST_TIMEOUT_MS / 10)),
      // Node would answer a missing Host with an empty 400; plugins/http-requirements.ts answers it in the standard shape.
      requireHostHeader: false
    },
    // requestIdOf reads X-Request-Id itself, keeping it only when it looks like a gateway's id.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // A gateway sits in front: trust it for the client address in logs.
    trustProxy: true,
    return503OnClosing: true,
    logController: new OneLineRequestLog(),
    // Errors met before a route runs, or before there is a request at all, in the standard shape too.
    frameworkErrors,
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } }
  }
}

/** The application, as one plugin: infrastructure, then shared decorators, then Bees and routes. */
export default async function app (fastify: FastifyInstance, { config }: AppOptions) {
  // The bench's per-step timing, first so that it wraps every hook added after it; never loaded in service.
  if (config.BENCH_SPANS_FILE !== undefined) await fastify.register((await import('../plugins/spans.js')).default, { file: config.BENCH_SPANS_FILE })
  await fastify.register(configPlugin, { config })
  // Before every route and hook, so each request's span covers them all.
  await fastify.register(tracing)
  // First of the request hooks: an overloaded instance refuses before doing any work.
  await fastify.register(loadShedding)
  await fastify.register(validation)
  await fastify.register(jsonBodies)
  await fastify.register(contentEncoding)
  await fastify.register(errors)
  await fastify.register(accessLog)
  await fastify.register(httpRequirements)
  await fastify.register(securityHeaders)
  await fastify.register(cors)
  await fastify.register(registry)
  await fastify.register(sharedSchemas)
  await fastify.register(compress)
  await fastify.register(openapi)

  await fastify.register(ledger)
  await fastify.register(metrics)
  await fastify.register(beeHealth)
  await fastify.register(redis)
  await fastify.register(walletTokens)
  // Before any route it limits: it adds its check to each route as the route is added.
  await fastify.register(rateLimit)
  await fastify.register(catalog)
  await fastify.register(x402)
  await fastify.register(executor)
  await fastify.register(idempotencyPurge)
  await fastify.register(holdSweeper)
  await fastify.register(auth)
  await fastify.register(preparations)
  await fastify.register(runs)
  await fastify.register(oauth)
  await fastify.register(warmUp)

  await fastify.register(health)
  await fastify.register(builtInBees, { prefix: '/api' })
  await fastify.register(beeRoutes, { prefix: '/api' })
  await fastify.register(beeOpenApiRoutes, { prefix: '/api' })
  await fastify.register(publisherRoutes, { prefix: '/api' })
  await fastify.register(earningsRoutes, { prefix: '/api' })
  await fastify.register(publishingRoutes, { prefix: '/api' })
  await fastify.register(importRoutes, { prefix: '/api' })
  await fastify.register(credentialRoutes, { prefix: '/api' })
  await fastify.register(preparationRoutes, { prefix: '/api' })
  await fastify.register(runRoutes, { prefix: '/api' })
  await fastify.register(walletAdminRoutes, { prefix: '/api' })
  await fastify.register(walletHolderRoutes, { prefix: '/api' })
  await fastify.register(walletTokenRoutes, { prefix: '/api' })
  await fastify.register(jwksRoutes)
  await fastify.register(subscriptionRoutes, { prefix: '/api' })
  await fastify.register(x402Routes, { prefix: '/api' })
  await fastify.register(mcpRoutes)
  await fastify.register(oauthRoutes)
  await fastify.register(oauthConsentRoutes)
  await fastify.register(a2aRoutes)
  await fastify.register(llmsRoutes)
}
