import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { adminHeaders } from '../../helper.js'
import { startServer } from '../../server-process.js'
import { selfSignedCertificate } from '../../tls-certificate.js'
import { formConsent, FormBrowser, REDIRECT } from '../oauth/client.js'

/**
 * A client's metadata published at an https URL, that URL its client_id (draft-ietf-oauth-client-id-metadata-document,
 * as the MCP authorization spec has clients register). The document's server is a fake on 127.0.0.1 with a certificate
 * made here; the service runs as its own process so that it trusts the certificate the way an operator makes it trust a
 * private CA (NODE_EXTRA_CA_CERTS, read at start), and reaches 127.0.0.1 the one documented way (EGRESS_ALLOWLIST).
 */
async function documentServer () {
  const { cert, key } = await selfSignedCertificate()
  const hits = new Map<string, number>()
  const server = createServer({ cert, key }, (request, response) => {
    const path = request.url ?? ''
    hits.set(path, (hits.get(path) ?? 0) + 1)
    const clientId = `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}`
    const document = { client_id: clientId, client_name: 'Metadata Agent', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }
    if (path === '/client.json') {
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(JSON.stringify(document))
    } else if (path === '/big.json') {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...document, client_uri: `https://agent.example/${'x'.repeat(6000)}` }))
    } else if (path === '/slow.json') {
      // Headers at once, then a byte every 200 ms: no single wait is long, the whole is.
      response.writeHead(200, { 'content-type': 'application/json' })
      const drip = setInterval(() => response.write(' '), 200)
      response.on('close', () => clearInterval(drip))
    } else {
      response.writeHead(404).end()
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, cert, hits, url: (path: string) => `https://127.0.0.1:${(server.address() as AddressInfo).port}${path}` }
}

/** An authorization request as an MCP client opens it, with a fresh PKCE pair. */
function authorization (base: string, clientId: string) {
  const verifier = randomBytes(32).toString('base64url')
  const url = new URL('/oauth/authorize', base)
  url.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: `${base}/mcp`,
    scope: 'mcp offline_access',
    state: randomBytes(8).toString('hex')
  }).toString()
  return { url, verifier }
}

test('a Client ID Metadata Document on https: fetched through the egress guard, shown on the consent page, bounded in size and time, cached', async (t) => {
  const documents = await documentServer()
  t.teardown(() => documents.server.close())
  const directory = mkdtempSync(join(tmpdir(), 'apiary-cimd-'))
  t.teardown(() => rmSync(directory, { recursive: true, force: true }))
  const caFile = join(directory, 'ca.pem')
  writeFileSync(caFile, documents.cert)
  const service = await startServer({ DATABASE_URL: ':memory:', EGRESS_ALLOWLIST: '127.0.0.1', NODE_EXTRA_CA_CERTS: caFile }, 'sources')
  t.teardown(() => service.stop())
  const base = service.url
  const created = await fetch(`${base}/api/wallets`, { method: 'POST', headers: { ...adminHeaders, 'content-type': 'application/json' }, body: JSON.stringify({ balance: 1 }) })
  const wallet = await created.json() as { token: string }

  const clientId = documents.url('/client.json')
  const first = authorization(base, clientId)
  const seen: { page?: string } = {}
  const back = await formConsent({ wallet_key: wallet.token, cap: '0.5', bees: 'all', expires_in_days: '1' }, seen)(first.url)
  t.match(seen.page, /Metadata Agent/, 'the consent page names the client as its document does')
  t.match(seen.page, /127\.0\.0\.1:59999/, 'and the host of the redirect its document lists')
  t.match(seen.page, `publishes at <strong>${new URL(clientId).host}</strong>`, 'and the host that publishes the document, which vouches for the name')
  const exchanged = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code: back.searchParams.get('code') ?? '', redirect_uri: REDIRECT, code_verifier: first.verifier }).toString()
  })
  t.equal(exchanged.status, 200, 'the code is exchanged by the client the URL names, with no registration')
  const { access_token: accessToken } = await exchanged.json() as { access_token: string }
  const call = await fetch(`${base}/mcp/oauth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'sentiment-analyzer', arguments: { text: 'I love it' } } })
  })
  t.notOk((await call.json() as { result: { isError?: boolean } }).result.isError, 'and its access token pays a paid call')
  t.equal(documents.hits.get('/client.json'), 1, 'the document was fetched once')

  const second = await new FormBrowser().follow(authorization(base, clientId).url)
  t.equal(second.response.status, 200)
  t.match(await second.response.text(), /Metadata Agent/, 'a second authorization shows the consent page again')
  t.equal(documents.hits.get('/client.json'), 1, 'from the cached document: it is not fetched again within its max-age')

  const big = await fetch(authorization(base, documents.url('/big.json')).url, { redirect: 'manual' })
  t.equal(big.status, 400, 'a document over 5 KB is refused')
  t.match(await big.text(), /^invalid_client: client_id metadata document fetch failed: the document is larger than 5 KB/)

  const started = Date.now()
  const slow = await fetch(authorization(base, documents.url('/slow.json')).url, { redirect: 'manual' })
  const elapsed = Date.now() - started
  t.equal(slow.status, 400, 'a document that takes too long is refused')
  t.match(await slow.text(), /^invalid_client: client_id metadata document fetch failed: the document did not arrive within 2\.5 s/)
  t.ok(elapsed >= 2400 && elapsed < 10_000, `and the wait is bounded at 2.5 s (${elapsed} ms)`)
})
