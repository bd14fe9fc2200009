import { connect, type AddressInfo } from 'node:net'
import { test } from 'tap'
import { adminHeaders, build, createWallet } from '../helper.js'
import { startFakeBee } from '../fake-bee.js'
import { beeBody, createPublisher } from '../publishing-helper.js'

test('every answer carries nosniff, no framing and a CSP that allows nothing active', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const requests = [
    { url: '/api/bees' },
    { url: '/api/bees/weather-sensor' },
    { url: '/health' },
    { url: '/openapi/openapi.json' },
    { url: '/api/nothing-here' },
    { method: 'DELETE' as const, url: '/api/bees' },
    { url: '/api/wallets/%zz', headers: adminHeaders },
    { url: '/api/wallets' },
    { method: 'POST' as const, url: '/api/bees/sentiment-analyzer/execute', payload: { text: 'Fine.' }, headers: { 'x-registry-wallet-token': wallet.token } },
    { method: 'POST' as const, url: '/api/bees/sentiment-analyzer/execute', payload: '{', headers: { 'content-type': 'application/json' } }
  ]
  for (const request of requests) {
    const response = await app.inject(request)
    const name = `${request.method ?? 'GET'} ${request.url} (${response.statusCode})`
    t.equal(response.headers['x-content-type-options'], 'nosniff', name)
    t.equal(response.headers['x-frame-options'], 'DENY', name)
    t.match(response.headers['content-security-policy'], /default-src 'none'/, name)
    t.match(response.headers['content-security-policy'], /frame-ancestors 'none'/, name)
  }
})

test('JSON answers carry the REST set only; HTML and Markdown answers add the headers only a browser rendering them uses', async (t) => {
  const app = await build(t)
  const documentOnly = ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control', 'x-download-options',
    'x-permitted-cross-domain-policies', 'x-xss-protection']
  const rest = {
    'cross-origin-resource-policy': 'same-origin',
    'referrer-policy': 'no-referrer',
    'strict-transport-security': 'max-age=31536000; includeSubDomains',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY'
  }
  const json = [
    await app.inject({ url: '/api/bees' }),
    await app.inject({ url: '/api/nothing-here' }),
    await app.inject({ method: 'POST', url: '/api/bees/sentiment-analyzer/execute', payload: '{', headers: { 'content-type': 'application/json' } })
  ]
  for (const response of json) {
    t.match(response.headers['content-type'], /^application\/json/)
    t.match(response.headers, rest, `${response.statusCode}: the REST set`)
    for (const name of documentOnly) t.equal(response.headers[name], undefined, `${response.statusCode}: no ${name} on JSON`)
  }
  const documents = [
    await app.inject({ url: '/docs/' }),
    await app.inject({ url: '/api/bees/weather-sensor', headers: { accept: 'text/markdown' } })
  ]
  for (const response of documents) {
    const name = String(response.headers['content-type'])
    t.match(response.headers, rest, `${name}: the REST set`)
    t.match(response.headers, {
      'cross-origin-opener-policy': 'same-origin',
      'origin-agent-cluster': '?1',
      'x-dns-prefetch-control': 'off',
      'x-download-options': 'noopen',
      'x-permitted-cross-domain-policies': 'none',
      'x-xss-protection': '0'
    }, `${name}: the browser-only headers`)
  }
})

test('answers holding a wallet token, a publisher key or a signing secret are Cache-Control: no-store', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const wallet = await app.inject({ method: 'POST', url: '/api/wallets', headers: adminHeaders, payload: { balance: 1 } })
  t.equal(wallet.statusCode, 201)
  t.equal(wallet.headers['cache-control'], 'no-store', 'wallet creation')
  const publisher = await app.inject({ method: 'POST', url: '/api/publishers', headers: adminHeaders, payload: { email: 'a@example.com', name: 'A' } })
  t.equal(publisher.statusCode, 201)
  t.equal(publisher.headers['cache-control'], 'no-store', 'publisher creation')
  const { headers } = await createPublisher(app, 'Other')
  const published = await app.inject({ method: 'POST', url: '/api/bees', headers, payload: beeBody('shouter', fake.url) })
  t.equal(published.statusCode, 201)
  t.ok(published.json().signingSecret)
  t.equal(published.headers['cache-control'], 'no-store', 'Bee publication')
})

test('any answer to a request with credentials is no-store; anonymous discovery stays cacheable', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const anonymous = await app.inject({ url: '/api/bees' })
  t.equal(anonymous.headers['cache-control'], 'public, max-age=5')
  for (const headers of [adminHeaders, { authorization: 'Bearer wrong' }, { 'x-registry-wallet-token': wallet.token }]) {
    for (const url of ['/api/bees', '/api/bees/weather-sensor', '/api/wallet', '/api/wallets']) {
      const response = await app.inject({ url, headers })
      t.equal(response.headers['cache-control'], 'no-store', `${url} with ${Object.keys(headers)[0]} (${response.statusCode})`)
    }
  }
})

test('Swagger UI at /docs loads everything it needs from its own origin, within its CSP', async (t) => {
  const app = await build(t)
  const page = await app.inject({ url: '/docs/' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  const csp = String(page.headers['content-security-policy'])
  const directive = (name: string) => csp.split(';').map((part) => part.trim()).find((part) => part.startsWith(`${name} `))
  t.equal(directive('script-src'), "script-src 'self'", 'scripts from this origin only')
  t.equal(directive('style-src'), "style-src 'self' 'unsafe-inline'", 'style files from this origin only (the bundle sets one inline style)')
  t.equal(directive('connect-src'), "connect-src 'self'", 'the spec is fetched from this origin')
  t.equal(directive('frame-ancestors'), "frame-ancestors 'none'")
  t.equal(page.headers['x-content-type-options'], 'nosniff')

  // No inline script, which the CSP blocks: every script and style is a file of this origin, and loads.
  t.notMatch(page.body, /<script(?![^>]*\bsrc=)[^>]*>\s*\S/, 'no inline script')
  t.notMatch(page.body, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or event handler')
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '')
  t.ok(assets.some((asset) => asset.endsWith('swagger-ui-bundle.js')), 'the bundle is referenced')
  for (const asset of assets) {
    t.notMatch(asset, /^(https?:)?\/\//, `${asset} is same-origin`)
    const response = await app.inject({ url: new URL(asset, 'http://localhost/docs/').pathname })
    t.equal(response.statusCode, 200, asset)
  }
  const spec = await app.inject({ url: '/docs/json' })
  t.equal(spec.statusCode, 200, 'the spec Swagger UI fetches')
})

test('answers written before Fastify has a request (417, parser errors) carry nosniff and the CSP too', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const exchange = (request: string) => new Promise<string>((resolve) => {
    let received = ''
    const socket = connect(port, '127.0.0.1', () => socket.write(request))
    socket.on('data', (chunk) => { received += String(chunk) })
    socket.on('error', () => {})
    socket.on('close', () => resolve(received))
  })
  const answers = {
    417: await exchange('GET /health HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n'),
    400: await exchange('NOT HTTP AT ALL\r\n\r\n')
  }
  for (const [status, answer] of Object.entries(answers)) {
    t.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), status)
    t.match(answer, /\r\nx-content-type-options: nosniff\r\n/i, `${status} nosniff`)
    t.match(answer, /\r\ncontent-security-policy: default-src 'none'/i, `${status} CSP`)
  }
})
