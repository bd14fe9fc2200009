import { once } from 'node:events'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { test } from 'tap'
import { listening } from '../mcp/clients.js'
import { connectWithOAuth, FormBrowser, formConsent, MemoryOAuthProvider, refresh } from '../oauth/client.js'
import { balanceOf, build, createWallet } from '../../helper.js'
import { selfSignedCertificate } from '../../tls-certificate.js'

test('an MCP client goes from no credentials to a paid call through OAuth alone, charged against the budget it was granted', async (t) => {
  const { app, url } = await listening(t)
  const wallet = await createWallet(app, 1)
  const oauthUrl = new URL('/mcp/oauth', url)
  const provider = new MemoryOAuthProvider('Budget Agent')
  const seen: { page?: string } = {}
  const client = await connectWithOAuth(oauthUrl, provider, formConsent({ wallet_key: wallet.token, cap: '0.002', per_call_cap: '0.001', bees: 'all', expires_in_days: '1' }, seen))
  t.teardown(() => client.close())
  t.match(seen.page, /Budget Agent/, 'the consent page names the client')
  t.match(seen.page, /127\.0\.0\.1:59999/, 'and its redirect host')
  t.notMatch(seen.page, /publishes at/, 'a registered client has no document to name')

  const call = async () => await client.callTool({ name: 'sentiment-analyzer', arguments: { text: 'I love it' } }) as { isError?: boolean, content: Array<{ text: string }> }
  t.notOk((await call()).isError, 'the first paid call goes through')
  t.notOk((await call()).isError, 'the second too')
  t.equal(await balanceOf(app, wallet.id), 0.998, 'both were charged to the wallet')
  const third = await call()
  t.ok(third.isError, 'the third is past the cap')
  t.match(third.content[0]?.text, /TOKEN_CAP|cap/i)
  t.equal(await balanceOf(app, wallet.id), 0.998)

  const tokens = await app.inject({ method: 'GET', url: '/api/wallet/tokens', headers: { 'x-registry-wallet-token': wallet.token } })
  const listed = tokens.json<{ tokens: Array<{ label: string, spent: number, parentId: string | null }> }>().tokens
  const budget = listed.find((token) => token.parentId === null)
  t.match(budget, { label: 'OAuth: Budget Agent (127.0.0.1:59999)', spent: 0.002 }, 'the budget is listed with the wallet\'s tokens')
  t.ok(provider.saved.refresh_token, 'a refresh token was issued')
  const refreshed = await refresh(url, provider)
  t.equal(refreshed.status, 400, 'a spent budget gets no new access token either')
  t.match(await refreshed.json(), { error: 'invalid_grant', error_description: /is spent; connect again/ })
})

test('metadata: the protected resource (RFC 9728, root and path-suffixed) and the authorization server (RFC 8414)', async (t) => {
  const { app, url } = await listening(t)
  const base = url.origin
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource/mcp/oauth']) {
    const response = await fetch(new URL(path, base))
    t.equal(response.status, 200, path)
    t.match(await response.json(), { resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ['mcp'] }, path)
  }
  const server = await (await fetch(new URL('/.well-known/oauth-authorization-server', base))).json() as Record<string, any>
  t.equal(server.issuer, base)
  t.same(server.code_challenge_methods_supported, ['S256'], 'PKCE with S256 only')
  t.same(server.response_types_supported, ['code'], 'the authorization code grant only')
  t.match(server, {
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    client_id_metadata_document_supported: true
  })
  t.ok(server.grant_types_supported.includes('refresh_token'))
  void app
})

test('/mcp/oauth without a token answers 401 with a challenge naming the metadata; /mcp stays open and tells a paid call how to connect with a budget', async (t) => {
  const { url } = await listening(t)
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const refused = await fetch(new URL('/mcp/oauth', url), { method: 'POST', headers, body: JSON.stringify(initialize) })
  t.equal(refused.status, 401)
  t.equal(refused.headers.get('www-authenticate'), `Bearer resource_metadata="${url.origin}/.well-known/oauth-protected-resource/mcp", scope="mcp"`)
  t.match(await refused.json(), { error: { data: { code: 'TOKEN_REQUIRED' } } })

  const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sentiment-analyzer', arguments: { text: 'fine' } } }
  const open = await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify(call) })
  t.equal(open.status, 200)
  const result = (await open.json() as { result: { isError: boolean, content: Array<{ text: string }> } }).result
  t.ok(result.isError)
  t.match(result.content[0]?.text, /WALLET_TOKEN_MISSING.*\/mcp\/oauth/)
})

test('a Bearer that is not an access token for this MCP endpoint is refused with 401 (another audience, or none)', async (t) => {
  const { app, url } = await listening(t)
  const wallet = await createWallet(app, 1)
  const minted = await app.inject({ method: 'POST', url: '/api/wallet/tokens', headers: { 'x-registry-wallet-token': wallet.token }, payload: { cap: 0.5 } })
  const plain = minted.json<{ token: string }>().token
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  for (const [what, bearer] of [['a verification token minted without an audience', plain], ['a wallet key', wallet.token], ['garbage', 'not-a-token']]) {
    for (const path of ['/mcp', '/mcp/oauth']) {
      const response = await fetch(new URL(path, url), { method: 'POST', headers: { ...headers, authorization: `Bearer ${bearer}` }, body })
      t.equal(response.status, 401, `${what} on ${path}`)
      t.match(response.headers.get('www-authenticate'), /error="invalid_token"/)
    }
  }
})

test('refresh tokens rotate on use; revoking the refresh token (RFC 7009) revokes the budget; a revoked budget gets no new access token', async (t) => {
  const { app, url } = await listening(t)
  const wallet = await createWallet(app, 1)
  const provider = new MemoryOAuthProvider('Rotating Agent')
  const client = await connectWithOAuth(new URL('/mcp/oauth', url), provider, formConsent({ wallet_key: wallet.token, cap: '0.5', bees: 'sentiment-analyzer', expires_in_days: '7' }))
  t.teardown(() => client.close())
  const token = async (params: Record<string, string>) => await fetch(new URL('/oauth/token', url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: provider.client.client_id, ...params }).toString()
  })
  const first = provider.saved.refresh_token as string
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first })
  t.equal(refreshed.status, 200)
  const next = await refreshed.json() as { access_token: string, refresh_token: string }
  t.not(next.refresh_token, first, 'a new refresh token')
  const replay = await token({ grant_type: 'refresh_token', refresh_token: first })
  t.equal(replay.status, 400, 'the used one is spent')
  t.match(await replay.json(), { error: 'invalid_grant' })

  const revoked = await fetch(new URL('/oauth/revoke', url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: provider.client.client_id, token: next.refresh_token, token_type_hint: 'refresh_token' }).toString()
  })
  t.equal(revoked.status, 200)
  const listed = await app.inject({ method: 'GET', url: '/api/wallet/tokens', headers: { 'x-registry-wallet-token': wallet.token } })
  const { tokens } = listed.json<{ tokens: Array<{ parentId: string | null, revokedAt: string | null, bees: string[] }> }>()
  const budget = tokens.find((row) => row.parentId === null)
  t.match(budget, { bees: ['sentiment-analyzer'] }, 'the allowed Bees set on the consent page')
  t.not(budget?.revokedAt, null, 'revoking the grant revoked the budget')
  const call = await client.callTool({ name: 'sentiment-analyzer', arguments: { text: 'hi' } }) as { isError?: boolean, content: Array<{ text: string }> }
  t.ok(call.isError, 'the access token it had is refused too')
  t.match(call.content[0]?.text, /TOKEN_REVOKED/)
})

test('the consent page refuses a form without its CSRF token, from another origin, or with a bad field, in words', async (t) => {
  const { app, url } = await listening(t)
  const wallet = await createWallet(app, 1)
  const provider = new MemoryOAuthProvider('Careful Agent')
  let checked = false
  const consent = async (authorizationUrl: URL) => {
    const browser = new FormBrowser()
    const page = await browser.follow(authorizationUrl)
    t.equal(page.response.headers.get('x-frame-options'), 'DENY', 'never framed')
    t.match(page.response.headers.get('content-security-policy'), /frame-ancestors 'none'/)
    t.match(page.response.headers.get('content-security-policy'), /default-src 'none'/)
    const html = await page.response.text()
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string
    const post = async (fields: Record<string, string>, origin = page.url.origin) => await browser.go(page.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams(fields).toString()
    })
    const fields = { decision: 'allow', wallet_key: wallet.token, cap: '1', bees: 'all', expires_in_days: '1' }
    t.equal((await post(fields)).status, 403, 'no CSRF token')
    t.equal((await post({ ...fields, csrf }, 'https://evil.example')).status, 403, 'another origin')
    const bad = await post({ ...fields, csrf, cap: 'lots' })
    t.equal(bad.status, 400)
    t.match(await bad.text(), /role="alert".*Total budget must be a number/s, 'the error is said in words, and announced')
    const unknown = await post({ ...fields, csrf, bees: 'no-such-bee' })
    t.match(await unknown.text(), /There is no Bee &#34;no-such-bee&#34;/)
    const wrongKey = await post({ ...fields, csrf, wallet_key: 'awt_wrong' })
    t.equal(wrongKey.status, 401)
    checked = true
    return await formConsent({ wallet_key: wallet.token, cap: '1', bees: 'all', expires_in_days: '1' })(authorizationUrl)
  }
  const client = await connectWithOAuth(new URL('/mcp/oauth', url), provider, consent)
  t.teardown(() => client.close())
  t.ok(checked)
})

test('Client ID Metadata Documents are fetched through the egress guard: a client id on a private address is refused, saying why', async (t) => {
  const { url } = await listening(t)
  // A TLS server on this port, so that the refusal is the guard's and not a connection refused.
  const { cert, key } = await selfSignedCertificate()
  const decoy = createServer({ cert, key }, (_request, response) => response.end('{}')).listen(0, '127.0.0.1')
  await once(decoy, 'listening')
  t.teardown(() => decoy.close())
  const port = (decoy.address() as AddressInfo).port
  for (const host of ['127.0.0.1', 'localhost']) {
    const authorize = new URL('/oauth/authorize', url)
    authorize.search = new URLSearchParams({
      client_id: `https://${host}:${port}/client.json`,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:59999/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      scope: 'mcp'
    }).toString()
    const response = await fetch(authorize, { redirect: 'manual' })
    t.equal(response.status, 400, host)
    t.match(await response.text(), /^invalid_client: client_id metadata document fetch failed: its host is a loopback, private or reserved address/, host)
  }
})

test('only the endpoints of the enabled features reach the authorization server: any other path under /oauth is the standard 404', async (t) => {
  const app = await build(t)
  const metadata = (await app.inject('/.well-known/oauth-authorization-server')).json<Record<string, unknown>>()
  for (const disabled of ['userinfo_endpoint', 'end_session_endpoint', 'pushed_authorization_request_endpoint', 'introspection_endpoint', 'device_authorization_endpoint']) {
    t.notOk(disabled in metadata, `the metadata names no ${disabled}`)
  }
  for (const [method, url] of [
    ['GET', '/oauth/userinfo'], ['GET', '/oauth/session/end'], ['POST', '/oauth/session/end/confirm'], ['POST', '/oauth/par'],
    ['POST', '/oauth/introspect'], ['POST', '/oauth/device/auth'], ['GET', '/oauth/me'], ['GET', '/oauth/nothing'],
    ['POST', '/oauth/token/extra'], ['GET', '/interaction/abc'], ['GET', '/session/end']
  ] as const) {
    const response = await app.inject({ method, url })
    t.equal(response.statusCode, 404, `${method} ${url}`)
    t.match(response.headers['content-type'], /^application\/json/)
    const body = response.json<Record<string, unknown>>()
    t.same(Object.keys(body), ['error', 'code', 'message'], `${method} ${url} answers {error, code, message}`)
    t.equal(body.code, 'ROUTE_NOT_FOUND')
  }
  const wrongMethod = await app.inject({ method: 'GET', url: '/oauth/token' })
  t.equal(wrongMethod.statusCode, 405, 'an enabled endpoint with a method it does not take is the standard 405')
  t.same(Object.keys(wrongMethod.json()), ['error', 'code', 'message'])
  // The enabled ones still answer as OAuth endpoints do (here: a request missing its parameters).
  const token = await app.inject({ method: 'POST', url: '/oauth/token', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })
  t.equal(token.statusCode, 400)
  t.match(token.json(), { error: 'invalid_request' })
  t.equal((await app.inject('/oauth/jwks')).statusCode, 200, 'the metadata\'s jwks_uri')
})
