import { test } from 'tap'
import { loadConfig } from '../../src/config.js'
import { build, createWallet } from '../helper.js'

const app = 'https://app.example.com'
const other = 'https://evil.example.net'
const env = { CORS_ORIGINS: `${app}, http://localhost:5173` }
const execute = '/api/bees/sentiment-analyzer/execute'

function preflight (url: string, origin: string, method = 'POST') {
  return {
    method: 'OPTIONS' as const,
    url,
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'content-type,x-registry-wallet-token,idempotency-key'
    }
  }
}

const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => name.startsWith('access-control-'))

test('a listed origin\'s preflight is 204 on any route, before credentials are asked for', async (t) => {
  const server = await build(t, { env })
  for (const url of [execute, '/mcp', '/api/bees', '/api/wallet', '/api/wallets', '/api/bees/nope/execute']) {
    const response = await server.inject(preflight(url, app))
    t.equal(response.statusCode, 204, url)
    t.equal(response.headers['access-control-allow-origin'], app, url)
    t.equal(response.headers['access-control-allow-methods'], 'GET, HEAD, POST, PATCH, DELETE', url)
    const allowed = String(response.headers['access-control-allow-headers']).split(', ')
    for (const header of ['content-type', 'x-registry-wallet-token', 'idempotency-key', 'authorization', 'mcp-protocol-version', 'PAYMENT-SIGNATURE']) {
      t.ok(allowed.includes(header), `${url} allows ${header}`)
    }
    t.equal(response.body, '', url)
  }
  const second = await server.inject(preflight(execute, 'http://localhost:5173'))
  t.equal(second.headers['access-control-allow-origin'], 'http://localhost:5173', 'every listed origin, each as itself')
})

test('another origin gets no CORS header, and the answer it would get without CORS', async (t) => {
  const server = await build(t, { env })
  const denied = await server.inject(preflight(execute, other))
  t.same(corsHeaders(denied.headers), [], 'preflight: nothing a browser would accept')
  t.equal(denied.statusCode, 405)
  t.equal(denied.headers.allow, 'POST', 'the catch-all preflight route does not count as a method of the path')
  const near = await server.inject(preflight(execute, `${app}.evil.example.net`))
  t.same(corsHeaders(near.headers), [], 'origins match exactly, not by prefix')
  const actual = await server.inject({ url: '/api/bees', headers: { origin: other } })
  t.equal(actual.statusCode, 200)
  t.same(corsHeaders(actual.headers), [], 'an actual request: no CORS header')
})

test('with CORS on, unknown paths are still 404 and known paths still 405 for a wrong method', async (t) => {
  const server = await build(t, { env })
  const missing = await server.inject({ url: '/api/nothing-here', headers: { origin: app } })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().code, 'ROUTE_NOT_FOUND')
  const wrong = await server.inject({ method: 'DELETE', url: '/api/wallet' })
  t.equal(wrong.statusCode, 405)
  t.equal(wrong.headers.allow, 'GET, HEAD')
  const bare = await server.inject({ method: 'OPTIONS', url: '/api/bees' })
  t.equal(bare.statusCode, 405, 'an OPTIONS with no Origin is no preflight')
})

test('a listed origin reads a paid execute\'s answer, its charge headers, and a 402 body', async (t) => {
  const server = await build(t, { env })
  const wallet = await createWallet(server, 1)
  const paid = await server.inject({
    method: 'POST',
    url: execute,
    payload: { text: 'Lovely.' },
    headers: { origin: app, 'x-registry-wallet-token': wallet.token, 'idempotency-key': 'cors-1' }
  })
  t.equal(paid.statusCode, 200)
  t.equal(paid.headers['access-control-allow-origin'], app)
  t.match(paid.headers.vary, /origin/i, 'caches keep one answer per origin')
  const exposed = String(paid.headers['access-control-expose-headers']).toLowerCase().split(', ')
  for (const name of ['x-registry-cost', 'x-registry-balance', 'idempotent-replayed', 'x-request-id', 'payment-required', 'payment-response', 'ratelimit-remaining']) {
    t.ok(exposed.includes(name), `exposes ${name}`)
  }
  for (const name of ['x-registry-cost', 'x-registry-balance', 'x-request-id']) {
    t.ok(paid.headers[name] !== undefined, `the answer carries ${name}, which the page can read`)
  }
  t.equal(paid.headers['access-control-allow-credentials'], undefined, 'headers authenticate, never cookies')
  t.equal(paid.headers['cross-origin-resource-policy'], 'same-origin', 'CORP governs no-cors loads only; cors fetches are not blocked by it')

  const unpaid = await server.inject({ method: 'POST', url: execute, payload: { text: 'Lovely.' }, headers: { origin: app } })
  t.equal(unpaid.statusCode, 402)
  t.equal(unpaid.headers['access-control-allow-origin'], app, 'the page can read why it must pay')
  t.equal(unpaid.json().code, 'WALLET_TOKEN_MISSING')
})

test('CORS is off by default: no preflight, no CORS header', async (t) => {
  const server = await build(t)
  const response = await server.inject(preflight(execute, app))
  t.equal(response.statusCode, 405)
  t.same(corsHeaders(response.headers), [])
  const actual = await server.inject({ url: '/api/bees', headers: { origin: app } })
  t.same(corsHeaders(actual.headers), [])
})

test('a CORS_ORIGINS entry that is not an origin stops start-up, naming the variable and the fix', async (t) => {
  t.equal(loadConfig({}).CORS_ORIGINS, '')
  t.equal(loadConfig({ CORS_ORIGINS: 'https://a.example.com,http://127.0.0.1:8080' }).CORS_ORIGINS, 'https://a.example.com,http://127.0.0.1:8080')
  t.throws(() => loadConfig({ CORS_ORIGINS: 'https://a.example.com,app.example.com' }), /^CORS_ORIGINS: "app\.example\.com" is not an origin/)
  t.throws(() => loadConfig({ CORS_ORIGINS: 'https://app.example.com/' }), /CORS_ORIGINS: .*write "https:\/\/app\.example\.com"/)
  t.throws(() => loadConfig({ CORS_ORIGINS: 'https://App.example.com:443' }), /CORS_ORIGINS: .*write "https:\/\/app\.example\.com"/)
  t.throws(() => loadConfig({ CORS_ORIGINS: '*' }), /CORS_ORIGINS/)
  t.throws(() => loadConfig({ CORS_ORIGINS: 'ftp://files.example.com' }), /CORS_ORIGINS/)
})
