import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto'
import type Provider from 'oidc-provider'
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider'
import type { RetryLaterError } from '../errors.js'
import type { Ledger } from '../ledger/ledger.js'
import type { SigningKeyring } from '../tokens/keyring.js'
import type { CategoryOf } from '../tokens/mint.js'
import { accessTokenCustomizer, type StructuredToken } from './access-token.js'
import { ledgerAdapter } from './adapter.js'
import { CLIENT_METADATA_MAX_BYTES, clientDocumentProblem } from './client-fetch.js'

/** The one scope: calling the MCP endpoint's tools, paid from the granted budget. */
export const MCP_SCOPE = 'mcp'

/**
 * Where the provider's endpoints live (the issuer is the service's base URL, so its metadata is at the root):
 * only those of the features enabled below. oidc-provider has defaults for the others (userinfo, logout,
 * PAR, …); they are turned off and never routed.
 */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  registration: '/oauth/register',
  revocation: '/oauth/revoke',
  jwks: '/oauth/jwks'
} as const

/**
 * The provider's endpoints the service routes to it, with their methods: nothing else under /oauth reaches
 * oidc-provider (an unknown path is the service's own 404). The metadata (RFC 8414) names each of them.
 */
export const PROVIDER_ENDPOINTS: ReadonlyArray<{ method: Array<'GET' | 'POST'>, url: string }> = [
  { method: ['GET', 'POST'], url: OAUTH_ROUTES.authorization },
  // Where the consent page sends the browser back to finish the authorization.
  { method: ['GET'], url: `${OAUTH_ROUTES.authorization}/:uid` },
  { method: ['POST'], url: OAUTH_ROUTES.token },
  { method: ['POST'], url: OAUTH_ROUTES.registration },
  // RFC 7592 read: the registration_client_uri a registration answers.
  { method: ['GET'], url: `${OAUTH_ROUTES.registration}/:clientId` },
  { method: ['POST'], url: OAUTH_ROUTES.revocation },
  // The metadata's jwks_uri: the same public key as /.well-known/jwks.json.
  { method: ['GET'], url: OAUTH_ROUTES.jwks },
  { method: ['GET'], url: '/.well-known/openid-configuration' }
]

/** The consent page of an interaction. */
export const consentPath = (uid: string) => `/oauth/consent/${uid}`

export interface OAuthServerOptions {
  ledger: Ledger
  keyring: SigningKeyring
  categoryOf: CategoryOf
  /** How Client ID Metadata Documents are fetched (through the egress guard). */
  fetch: (url: string | URL, init: RequestInit) => Promise<Response>
  accessTokenTtlSeconds: number
  refreshTokenTtlSeconds: number
  /** The 503 for a failure that is the ledger database being away or full (StoreHealth.refusal); null for any other. */
  storeRefusal: (error: unknown) => RetryLaterError | null
}

/** One issuer's authorization server, built for the keyring's current signing key. */
export interface IssuerServer {
  provider: Provider
  /** Answers a request to one of the provider's endpoints (a Node request listener). */
  handle: ReturnType<Provider['callback']>
  /** The protected resource its tokens are for: the MCP endpoint. */
  resource: string
  /** A MAC of `text` for one purpose (the consent form's CSRF token, the sign-in cookie), and its check in constant time. */
  mac (purpose: string, text: string): string
  macValid (purpose: string, text: string, presented: string): boolean
}

/** The MCP endpoint an issuer's tokens are for: its audience. */
export const mcpResourceOf = (issuer: string) => `${issuer}/mcp`

/**
 * Apiary's OAuth 2.1 authorization server: oidc-provider, configured for the MCP authorization spec
 * (authorization code with PKCE S256 only, refresh tokens rotated on use, resource indicators with the
 * MCP endpoint the only audience, revocation, Dynamic Client Registration and Client ID Metadata
 * Documents), its state in the ledger. Its access tokens are verification tokens (see access-token.ts),
 * signed with the keyring's key: a provider is built per issuer (the service's base URL) and signing
 * key, and built anew when the key rotates. oidc-provider (and Koa under it) is loaded on first use.
 */
export class OAuthServer {
  readonly #options: OAuthServerOptions
  readonly #servers = new Map<string, Promise<IssuerServer>>()

  constructor (options: OAuthServerOptions) {
    this.#options = options
  }

  async forIssuer (issuer: string): Promise<IssuerServer> {
    const { kid, privateJwk } = await this.#options.keyring.signingKey()
    const key = `${issuer} ${kid}`
    let server = this.#servers.get(key)
    if (server === undefined) {
      // Bounded: a key rotation leaves the old one behind, and without PUBLIC_BASE_URL hosts vary.
      if (this.#servers.size >= 8) this.#servers.delete(this.#servers.keys().next().value as string)
      server = this.#build(issuer, privateJwk)
      server.catch(() => this.#servers.delete(key))
      this.#servers.set(key, server)
    }
    return await server
  }

  async #build (issuer: string, privateJwk: Record<string, unknown>): Promise<IssuerServer> {
    const { default: ProviderClass, errors } = await import('oidc-provider')
    const options = this.#options
    const resource = mcpResourceOf(issuer)
    // Cookie and CSRF keys derived from the signing key: the same on every instance, rotated with it.
    const secret = Buffer.from(String(privateJwk.d), 'base64url')
    const derive = (info: string) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, 32))
    const cookieKey = derive('apiary oauth cookies').toString('base64url')
    const macKey = derive('apiary oauth forms')
    const customize = accessTokenCustomizer({
      ledger: options.ledger,
      categoryOf: options.categoryOf,
      ttlSeconds: options.accessTokenTtlSeconds,
      now: () => options.keyring.now()
    })
    const adapter = ledgerAdapter(options.ledger.oauth, async (budgetId) => {
      const budget = await options.ledger.tokens.get(budgetId)
      if (budget !== null) await options.ledger.tokens.revoke(budget.walletId, budget.path)
    })

    const configuration: Configuration = {
      adapter,
      jwks: { keys: [{ ...privateJwk, use: 'sig' }] as any },
      cookies: { keys: [cookieKey] },
      // Every authorization asks the wallet holder: a budget is granted anew each time, never reused
      // silently from an earlier session; only the grant this consent just made is loaded.
      loadExistingGrant: async (ctx) => {
        const grantId = ctx.oidc.result?.consent?.grantId
        return typeof grantId === 'string' ? await ctx.oidc.provider.Grant.find(grantId) : undefined
      },
      findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
      scopes: [MCP_SCOPE, 'offline_access'],
      claims: { openid: ['sub'] },
      responseTypes: ['code'],
      clientDefaults: {
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: 'EdDSA'
      },
      // PKCE with S256 on every authorization request (oidc-provider supports no other method).
      pkce: { required: () => true },
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: true,
      ttl: {
        AccessToken: options.accessTokenTtlSeconds,
        AuthorizationCode: 60,
        RefreshToken: options.refreshTokenTtlSeconds,
        Grant: options.refreshTokenTtlSeconds,
        Interaction: 600,
        Session: 600
      },
      features: {
        devInteractions: { enabled: false },
        // On by default in oidc-provider, of no use to an MCP client, and not routed (PROVIDER_ENDPOINTS).
        userinfo: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        pushedAuthorizationRequests: { enabled: false },
        registration: { enabled: true },
        revocation: { enabled: true },
        clientIdMetadataDocument: { enabled: true, ack: 'draft-02' } as any,
        resourceIndicators: {
          enabled: true,
          defaultResource: () => resource,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, indicator) => {
            if (indicator !== resource) throw new errors.InvalidTarget(`the only resource here is ${resource}`)
            return {
              scope: MCP_SCOPE,
              audience: resource,
              accessTokenTTL: options.accessTokenTtlSeconds,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'EdDSA' } }
            }
          }
        }
      },
      formats: {
        customizers: {
          jwt: async (ctx: KoaContextWithOIDC, token: any, jwt: StructuredToken) => {
            const client = ctx.oidc.client
            await customize(client?.clientName ?? client?.clientId ?? 'an MCP client', String(token.accountId), jwt)
          }
        }
      },
      interactions: { url: (_ctx, interaction) => consentPath(interaction.uid) },
      routes: OAUTH_ROUTES,
      fetch: options.fetch as any,
      fetchResponseBodyLimits: { 'client_id metadata document': CLIENT_METADATA_MAX_BYTES },
      renderError: async (ctx, out, error) => {
        const why = clientDocumentProblem(error)
        ctx.type = 'text/plain; charset=utf-8'
        ctx.body = `${out.error}: ${out.error_description ?? ''}${why === null ? '' : `: ${why}`}\n`
      }
    }
    const provider = new ProviderClass(issuer, configuration)
    // The ledger away is 503 temporarily_unavailable with Retry-After (RFC 6749's error for it), in the shape the
    // endpoint answers (JSON, or renderError's text), not oidc-provider's 500 server_error. Told after the error body
    // is set and before it is sent.
    provider.on('server_error', (ctx: KoaContextWithOIDC, error: unknown) => {
      const refused = options.storeRefusal(error)
      if (refused === null) return
      const out = { error: 'temporarily_unavailable', error_description: refused.message }
      ctx.status = 503
      ctx.set('retry-after', String(refused.retryAfterSeconds))
      ctx.body = typeof ctx.body === 'string' ? `${out.error}: ${out.error_description}\n` : out
    })
    // Apiary runs behind a gateway (trustProxy): the issuer's scheme and host come from it.
    provider.proxy = true
    const mac = (purpose: string, text: string) => createHmac('sha256', macKey).update(`${purpose}\0${text}`).digest('base64url')
    return {
      provider,
      handle: provider.callback(),
      resource,
      mac,
      macValid: (purpose, text, presented) => {
        const expected = Buffer.from(mac(purpose, text))
        const given = Buffer.from(presented)
        return given.length === expected.length && timingSafeEqual(given, expected)
      }
    }
  }
}
