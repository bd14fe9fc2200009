import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { SHARED_RESPONSE } from '../../core/publishing/shared-components.js'
import { Type } from 'typebox'
import { MCP_SCOPE, mcpResourceOf, PROVIDER_ENDPOINTS } from '../../core/oauth/provider.js'
import { baseUrlOf } from '../base-url.js'
import { MCP_RESOURCE_METADATA_PATH } from '../mcp/oauth-bearer.js'
import { NO_HOST } from '../refusals.js'

const ResourceMetadata = Type.Object({
  resource: Type.String({ format: 'uri', description: 'The protected resource: the MCP endpoint (an access token\'s aud).' }),
  authorization_servers: Type.Array(Type.String({ format: 'uri' }), { description: 'The issuer that grants its tokens: this service.' }),
  scopes_supported: Type.Array(Type.String(), { description: 'The one scope, mcp.' }),
  bearer_methods_supported: Type.Array(Type.String(), { description: 'Tokens go in the Authorization header.' }),
  resource_name: Type.String({ description: 'Its name, for people.' }),
  resource_documentation: Type.String({ format: 'uri', description: 'How to connect.' })
}, {
  // Three paths answer it alike (the root and one per MCP endpoint): the document lists it once.
  [SHARED_RESPONSE]: 'ProtectedResourceMetadata',
  description: 'OAuth 2.0 Protected Resource Metadata (RFC 9728).',
  examples: [{
    resource: 'https://apiary.example/mcp',
    authorization_servers: ['https://apiary.example'],
    scopes_supported: ['mcp'],
    bearer_methods_supported: ['header'],
    resource_name: 'Apiary MCP',
    resource_documentation: 'https://apiary.example/docs'
  }]
})

const ServerMetadata = Type.Object({
  issuer: Type.String({ format: 'uri', description: 'This service\'s base URL.' })
}, {
  additionalProperties: true,
  description: 'OAuth 2.0 Authorization Server Metadata (RFC 8414), as oidc-provider states it: endpoints, PKCE S256, ' +
    'registration, revocation, client_id_metadata_document_supported.',
  examples: [{ issuer: 'https://apiary.example', authorization_endpoint: 'https://apiary.example/oauth/authorize', code_challenge_methods_supported: ['S256'] }]
})

/**
 * The authorization server's doors: the metadata of the protected resource (RFC 9728, at the root and
 * path-suffixed for /mcp and /mcp/oauth) and of the authorization server (RFC 8414), and oidc-provider's
 * endpoints handed the raw request (it reads its own bodies, so this context parses none).
 */
const oauthRoutes: FastifyPluginAsync = async (fastify) => {
  const { oauth } = fastify

  const resourceMetadata = async (request: FastifyRequest) => {
    const base = baseUrlOf(request)
    return {
      resource: mcpResourceOf(base),
      authorization_servers: [base],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: 'Apiary MCP',
      resource_documentation: `${base}/docs`
    }
  }
  const metadataPaths: Array<[string, string]> = [
    ['/.well-known/oauth-protected-resource', 'oauth-protected-resource'],
    [MCP_RESOURCE_METADATA_PATH, 'oauth-protected-resource-mcp'],
    [`${MCP_RESOURCE_METADATA_PATH}/oauth`, 'oauth-protected-resource-mcp-oauth']
  ]
  for (const [path, operationId] of metadataPaths) {
    fastify.get(path, {
      schema: {
        tags: ['oauth'],
        operationId,
        security: [],
        summary: 'Protected resource metadata of the MCP endpoint (RFC 9728)',
        description: 'Where an MCP client learns which authorization server grants tokens for /mcp. See docs/agents/oauth.md.',
        response: { 200: ResourceMetadata, 400: NO_HOST }
      }
    }, resourceMetadata)
  }

  const handOver = async (request: FastifyRequest, reply: FastifyReply, url?: string) => {
    const server = await oauth.forIssuer(baseUrlOf(request))
    if (url !== undefined) request.raw.url = url
    reply.hijack()
    server.handle(request.raw, reply.raw)
  }

  fastify.get('/.well-known/oauth-authorization-server', {
    schema: {
      tags: ['oauth'],
      operationId: 'oauth-authorization-server',
      security: [],
      summary: 'Authorization server metadata (RFC 8414)',
      description: 'The same document as /.well-known/openid-configuration.',
      response: { 200: ServerMetadata, 400: NO_HOST }
    }
  }, async (request, reply) => { await handOver(request, reply, '/.well-known/openid-configuration') })

  // oidc-provider reads the bodies of its endpoints itself.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser('*', (_request, _payload, done) => { done(null) })
  // Only the endpoints of the enabled features: any other path under /oauth is the service's 404.
  for (const { method, url } of PROVIDER_ENDPOINTS) {
    fastify.route({
      method,
      url,
      // oidc-provider's endpoints, described by the metadata above (RFC 8414 and 7591 say what they answer).
      schema: { hide: true },
      handler: async (request, reply) => { await handOver(request, reply) }
    })
  }
}

export default oauthRoutes
