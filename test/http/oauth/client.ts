import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/client'

/** Stands for the browser an MCP client opens: answers the authorization URL, returns the redirect with the code. */
export type Consent = (authorizationUrl: URL) => Promise<URL>

// Nothing listens there; a port browsers do not refuse (9 is on their blocked list).
export const REDIRECT = 'http://127.0.0.1:59999/callback'

/** An MCP SDK client's OAuth state kept in memory, as a desktop client keeps it on disk. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: any
  saved: any
  verifier = ''
  authorizationUrl: URL | null = null

  constructor (readonly name = 'Test Agent') {}
  get redirectUrl () { return REDIRECT }
  get clientMetadata () {
    return { client_name: this.name, redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
  }

  clientInformation () { return this.client }
  saveClientInformation (info: any) { this.client = info }
  tokens () { return this.saved }
  saveTokens (tokens: any) { this.saved = tokens }
  redirectToAuthorization (url: URL) { this.authorizationUrl = url }
  saveCodeVerifier (verifier: string) { this.verifier = verifier }
  codeVerifier () { return this.verifier }
}

/**
 * Connects the 2.x SDK client to `url` through its own OAuth flow: the 401 starts it, the SDK discovers
 * and registers, `consent` plays the browser, the SDK exchanges the code, and the client connects again.
 */
export async function connectWithOAuth (url: URL, provider: MemoryOAuthProvider, consent: Consent): Promise<Client> {
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider })
  try {
    await new Client({ name: 'oauth-test', version: '1.0.0' }).connect(first)
    throw new Error('connected without authorization')
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error
  }
  if (provider.authorizationUrl === null) throw new Error('the SDK did not start authorization')
  const back = await consent(provider.authorizationUrl)
  if (!back.searchParams.has('code')) throw new Error(`no code in ${back.href}`)
  await first.finishAuth(back.searchParams)
  const client = new Client({ name: 'oauth-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))
  return client
}

/** The client redeeming its saved refresh token at the token endpoint of the server at `url`. */
export async function refresh (url: URL, provider: MemoryOAuthProvider): Promise<Response> {
  return await fetch(new URL('/oauth/token', url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: provider.client.client_id, grant_type: 'refresh_token', refresh_token: provider.saved.refresh_token }).toString()
  })
}

/** A browser without a screen: follows redirects by hand, keeping cookies per name. */
export class FormBrowser {
  readonly #cookies = new Map<string, string>()

  async go (url: URL | string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ')
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookie === '' ? {} : { cookie }) } })
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';')
      const index = pair.indexOf('=')
      this.#cookies.set(pair.slice(0, index), pair.slice(index + 1))
    }
    return response
  }

  /** Follows redirects until one leaves `origin` (the client's redirect) or a page answers. */
  async follow (url: URL | string, init: RequestInit = {}): Promise<{ response: Response, url: URL }> {
    let current = new URL(url)
    let response = await this.go(current, init)
    while (response.status >= 300 && response.status < 400) {
      current = new URL(response.headers.get('location') as string, current)
      if (current.href.startsWith(REDIRECT)) return { response, url: current }
      response = await this.go(current)
    }
    return { response, url: current }
  }
}

/** The consent the tests give by HTTP: open the page, fill the form as a person would, submit. */
export function formConsent (fields: Record<string, string>, seen: { page?: string } = {}): Consent {
  return async (authorizationUrl) => {
    const browser = new FormBrowser()
    const page = await browser.follow(authorizationUrl)
    const html = await page.response.text()
    seen.page = html
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1]
    if (csrf === undefined) throw new Error(`no consent form: ${page.response.status} ${html}`)
    const origin = page.url.origin
    const answer = await browser.follow(page.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ csrf, decision: 'allow', ...fields }).toString()
    })
    if (!answer.url.href.startsWith(REDIRECT)) throw new Error(`consent did not return to the client: ${answer.response.status} ${await answer.response.text()}`)
    return answer.url
  }
}
