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

/** The authorization server, its state in the ledger and its tokens signed by the wallet-token keyring. */
export default fp(async (fastify) => {
  const { config, ledger, registry, walletTokens } = fastify
  fastify.decorate('oauth', new OAuthServer({
    ledger,
    keyring: walletTokens.keyring,
    categoryOf: async (beeId) => (await registry.lookup(beeId))?.record.category,
    fetch: guardedFetch(new EgressPolicy(commaList(config.EGRESS_ALLOWLIST))),
    accessTokenTtlSeconds: config.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: config.OAUTH_REFRESH_TOKEN_TTL_DAYS * 24 * 3600,
    storeRefusal: (error) => fastify.storeHealth.refusal(error)
  }))
}, { name: 'oauth', dependencies: ['config', 'ledger', 'registry', 'wallet-tokens'] })
