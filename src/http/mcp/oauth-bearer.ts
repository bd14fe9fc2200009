import type { FastifyReply, FastifyRequest } from 'fastify'
import type { CodeWithStatus } from '../../core/error-catalog.js'
import { failureAs } from '../../core/errors.js'
import { MCP_SCOPE, mcpResourceOf } from '../../core/oauth/provider.js'
import { isVerificationToken } from '../../core/tokens/shape.js'
import type { TokenSigner } from '../../core/tokens/verifier.js'
import { baseUrlOf } from '../base-url.js'
import { bearerOf } from '../bearer.js'

/** The MCP door that requires a token: without one it answers 401, which is what starts a client's OAuth flow. */
export const MCP_OAUTH_PATH = '/mcp/oauth'

/** The protected resource metadata (RFC 9728) of the MCP endpoint, path-suffixed. */
export const MCP_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp'

/** The challenge a refused MCP request carries (RFC 6750, with RFC 9728's resource_metadata). */
function challenge (request: FastifyRequest, error: string | null): string {
  const base = baseUrlOf(request)
  const parts = [`resource_metadata="${base}${MCP_RESOURCE_METADATA_PATH}"`, `scope="${MCP_SCOPE}"`]
  if (error !== null) parts.push('error="invalid_token"', `error_description="${error}"`)
  return `Bearer ${parts.join(', ')}`
}

function refuse (request: FastifyRequest, reply: FastifyReply, code: CodeWithStatus<401>, message: string, error: string | null): never {
  void reply.header('www-authenticate', challenge(request, error))
  throw failureAs(code, 401, message)
}

/**
 * The wallet token an OAuth client presents as `Authorization: Bearer`: an access token this service
 * issued, for this MCP endpoint (its aud). A token for another audience, or not one of ours, is refused
 * with 401 and a challenge, so the client knows to authorize again. Undefined when there is no Bearer.
 * The payment step then checks the token's row (caps, expiry, revocation) as for any verification token.
 */
export async function mcpBearerToken (request: FastifyRequest, reply: FastifyReply, signer: TokenSigner): Promise<string | undefined> {
  const bearer = bearerOf(request)
  if (bearer === undefined) return undefined
  const verified = isVerificationToken(bearer) ? await signer.verify(bearer, mcpResourceOf(baseUrlOf(request))) : null
  if (verified?.ok !== true) {
    const expired = verified?.ok === false && verified.reason === 'TOKEN_EXPIRED'
    refuse(request, reply, expired ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID',
      expired ? 'The access token has expired; refresh it.' : `The Bearer token is not an access token for ${mcpResourceOf(baseUrlOf(request))}.`,
      expired ? 'expired' : 'not an access token for this resource')
  }
  return bearer
}

/** onRequest of the door that requires a token: no Bearer, a 401 whose challenge points at the metadata. */
export async function requireMcpBearer (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (bearerOf(request) === undefined) {
    refuse(request, reply, 'TOKEN_REQUIRED', `This MCP endpoint needs an OAuth access token; its metadata is at ${MCP_RESOURCE_METADATA_PATH}. ` +
      'Without one, use /mcp with a wallet token in X-Registry-Wallet-Token.', null)
  }
}
