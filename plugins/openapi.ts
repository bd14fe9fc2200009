import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import type { OpenAPIV3 } from 'openapi-types'
import { beeDocument, serviceDocument } from '../src/core/publishing/openapi-paths.js'
import { shareComponents } from '../src/core/publishing/shared-components.js'
import { WALLET_HEADER_NAME } from '../src/core/schemas.js'
import type { RegisteredBee } from '../src/core/registry.js'
import { cachedText, etagOf, sendCached, type CachedText } from '../src/http/cached-text.js'
import { x402Enabled } from '../src/config.js'
import { executeErrorCodes } from '../src/http/execute/responses.js'
import { withRunCodes } from '../src/http/execute/runs.js'
import { withoutRepeatedDescriptions } from '../src/http/openapi-descriptions.js'
import { withCallExamples, withResponseExamples } from '../src/http/openapi-examples.js'
import { DOCS_CSP } from './security-headers.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Each Bee's own OpenAPI document, serialized once per version of the Bee (see GET /api/bees/{id}/openapi.json). */
    openapiDocuments: { bee: (bee: RegisteredBee) => CachedText }
  }
}

// Weak: the document goes out as it is, gzip or br, and a strong ETag would name one exact byte sequence.
const weak = (body: string): CachedText => ({ body: Buffer.from(body), etag: `W/${etagOf(body)}` })

/**
 * The OpenAPI 3.0.3 document is generated from the route schemas, so it cannot drift from what the
 * service validates. It is served at /openapi/openapi.json; Swagger UI at /docs.
 */
export default fp(async (fastify) => {
  const publicBaseUrl = fastify.config.PUBLIC_BASE_URL
  await fastify.register(swagger, {
    // The paths are the ones this process serves: a path in PUBLIC_BASE_URL is the gateway's prefix, not theirs.
    stripBasePath: false,
    // A shared shape (plugins/shared-schemas.ts) is listed in components/schemas under its own $id.
    refResolver: { buildLocalReference: (json) => String(json.$id) },
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Apiary',
        version: '1.0.0',
        description: 'A registry of Bees: capabilities with declared JSON input and output schemas. ' +
          'Discover them with GET /api/bees and execute them with POST /api/bees/{id}/execute; every result comes ' +
          'back in a Honey envelope. This document describes the service, the built-in Bees\' execute paths and the generic ' +
          'one; each Bee\'s own typed execute operation is a document of its own at GET /api/bees/{id}/openapi.json. ' +
          `Pay-per-use Bees charge the wallet whose token is sent in ${WALLET_HEADER_NAME}.`,
        license: { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' }
      },
      // Relative when unset: a client resolves it against the address it fetched this document from.
      servers: [publicBaseUrl === undefined
        ? { url: '/', description: 'The origin this document was fetched from.' }
        : { url: publicBaseUrl, description: 'This service (PUBLIC_BASE_URL).' }],
      tags: [
        { name: 'discovery', description: 'Find Bees and read their schemas.' },
        { name: 'execute', description: 'Run a Bee and receive Honey.' },
        { name: 'mcp', description: 'The Model Context Protocol door: every active Bee as a tool (see docs/agents/mcp.md).' },
        { name: 'a2a', description: 'The Agent2Agent (A2A) door: an agent card whose skills are the active Bees, and its JSON-RPC endpoint (see docs/agents/a2a.md).' },
        { name: 'publishing', description: 'Publishers register, change and retire their own Bees.' },
        { name: 'wallets', description: 'Prepaid wallets for pay-per-use Bees.' },
        { name: 'subscriptions', description: 'A wallet\'s subscriptions to Bees priced by subscription.' },
        { name: 'earnings', description: 'What each publisher\'s Bees (and the operator) earned from sales, and the payouts recorded against it.' },
        { name: 'preparations', description: 'Website preparation: crawl a business\'s site into an llms.txt, schema.org JSON-LD, an agent manifest and a summary.' },
        { name: 'operations', description: 'Liveness and readiness.' }
      ],
      components: {
        securitySchemes: {
          walletToken: {
            type: 'apiKey',
            in: 'header',
            name: WALLET_HEADER_NAME,
            description: 'A funded wallet\'s key, or a verification token minted from it (POST /api/wallet/tokens); pay-per-use Bees charge it per call.'
          },
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'The operator\'s ADMIN_TOKEN.'
          },
          publisherKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'A publisher key issued by POST /api/publishers.'
          },
          // Only /metrics names it, and /metrics is on this port only with a METRICS_TOKEN: an unused scheme is noise.
          ...(fastify.config.METRICS_TOKEN === undefined
            ? {}
            : { metricsToken: { type: 'http', scheme: 'bearer', description: 'The operator\'s METRICS_TOKEN, for a Prometheus scraper.' } })
        }
      }
    }
  })
  const { registry } = fastify
  const x402 = x402Enabled(fastify.config)
  const generated = () => fastify.swagger() as OpenAPIV3.Document
  const finish = (document: OpenAPIV3.Document) => shareComponents(withoutRepeatedDescriptions(withResponseExamples(withCallExamples(document, registry))))
  // Rebuilt only when the registry changes (a built-in Bee's status is in it), and serialized once then; its size
  // does not depend on the catalog, since published Bees are described by documents of their own.
  let cached: { version: number, document: OpenAPIV3.Document, text: CachedText } | null = null
  const current = () => {
    if (cached?.version !== registry.version) {
      const document = finish(serviceDocument(generated(), registry))
      cached = { version: registry.version, document, text: weak(JSON.stringify(document)) }
    }
    return cached
  }
  // A record object is replaced whenever its Bee changes, so a Bee's document keyed by its record is never stale.
  const perBee = new WeakMap<object, CachedText>()
  const beeText = (bee: RegisteredBee): CachedText => {
    let text = perBee.get(bee.record)
    if (text === undefined) {
      const upstream = bee.definition.errors ?? {}
      const codes = executeErrorCodes(bee, bee.record.config.executionMode === 'sync' ? upstream : withRunCodes(upstream), x402)
      text = cachedText(JSON.stringify(beeDocument(generated(), bee, codes, finish)))
      perBee.set(bee.record, text)
    }
    return text
  }
  fastify.decorate('openapiDocuments', { bee: beeText })

  await fastify.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP, transformSpecification: () => current().document })
  fastify.get('/openapi/openapi.json', { schema: { hide: true }, compress: {} }, async (request, reply) =>
    sendCached(request, reply, current().text, 'application/json; charset=utf-8'))
}, { name: 'openapi', dependencies: ['compress', 'config', 'registry', 'security-headers', 'shared-schemas'] })
