import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import fp from 'fastify-plugin'
import type { OpenAPIV3 } from 'openapi-types'
import { registryDocument } from '../src/core/publishing/openapi-paths.js'
import { WALLET_HEADER_NAME } from '../src/core/schemas.js'
import { DOCS_CSP } from './security-headers.js'

/**
 * The OpenAPI 3.0.3 document is generated from the route schemas, so it cannot drift from what the
 * service validates. It is served at /openapi/openapi.json; Swagger UI at /docs.
 */
export default fp(async (fastify) => {
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Apiary',
        version: '1.0.0',
        description: 'A registry of Bees: capabilities with declared JSON input and output schemas. ' +
          'Discover them with GET /api/bees and execute them with POST /api/bees/{id}/execute; every result comes ' +
          `back in a Honey envelope. Pay-per-use Bees charge the wallet whose token is sent in ${WALLET_HEADER_NAME}.`
      },
      tags: [
        { name: 'discovery', description: 'Find Bees and read their schemas.' },
        { name: 'execute', description: 'Run a Bee and receive Honey.' },
        { name: 'mcp', description: 'The Model Context Protocol door: every active Bee as a tool (see the README, MCP).' },
        { name: 'a2a', description: 'The Agent2Agent (A2A) door: an agent card whose skills are the active Bees, and its JSON-RPC endpoint (see the README, A2A).' },
        { name: 'publishing', description: 'Publishers register, change and retire their own Bees.' },
        { name: 'wallets', description: 'Prepaid wallets for pay-per-use Bees.' },
        { name: 'preparations', description: 'Website preparation: crawl a business\'s site into an llms.txt, schema.org JSON-LD, an agent manifest and a summary.' },
        { name: 'operations', description: 'Liveness and readiness.' }
      ],
      components: {
        securitySchemes: {
          walletToken: {
            type: 'apiKey',
            in: 'header',
            name: WALLET_HEADER_NAME,
            description: 'Token of a funded wallet; pay-per-use Bees charge it per call.'
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
          }
        }
      }
    }
  })
  // Rebuilt only when the registry changes (a Bee published, changed or retired).
  let cached: { version: number, document: OpenAPIV3.Document } | null = null
  const current = () => {
    const { registry } = fastify
    if (cached?.version !== registry.version) {
      cached = { version: registry.version, document: registryDocument(fastify.swagger() as OpenAPIV3.Document, registry) }
    }
    return cached.document
  }

  await fastify.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP, transformSpecification: () => current() })
  fastify.get('/openapi/openapi.json', { schema: { hide: true } }, async () => current())
}, { name: 'openapi', dependencies: ['registry', 'security-headers'] })
