import fp from 'fastify-plugin'
import { commaList } from '../src/core/comma-list.js'
import { guardedFetch } from '../src/core/oauth/client-fetch.js'
import { OAuthServer } from '../src/core/oauth/provider.js'
import { EgressPolicy } from '../src/core/publishing/egress.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The OAuth authorization server MCP clients connect through (see docs/agents/oauth.md). */
    oauth: OAuthServer
  }
}

/** How long a Client ID Metadata Document may take to arrive (oidc-provider stops at 2.5 s as well). */
const CLIENT_METADATA_TIMEOUT_MS = 2500

/** The authorization server, its state in the ledger and its tokens signed by the wallet-token keyring. */
export default fp(async (fastify) => {
  const { config, ledger, registry, walletTokens } = fastify
  fastify.decorate('oauth', new OAuthServer({
    ledger,
    keyring: walletTokens.keyring,
    categoryOf: async (beeId) => (await registry.lookup(beeId))?.record.category,
    fetch: guardedFetch(new EgressPolicy(commaList(config.EGRESS_ALLOWLIST)), CLIENT_METADATA_TIMEOUT_MS),
    accessTokenTtlSeconds: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: config.OAUTH_REFRESH_TOKEN_TTL_DAYS * 24 * 3600
  }))
}, { name: 'oauth', dependencies: ['config', 'ledger', 'registry', 'wallet-tokens'] })
