import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { build } from '../helper.js'

const calls = {
  '/mcp': { jsonrpc: '2.0', id: 1, method: 'ping' },
  '/a2a': { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }
}
const accept = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', 'a2a-version': '1.0' }

async function call (app: FastifyInstance, url: keyof typeof calls, headers: Record<string, string>) {
  const response = await app.inject({ method: 'POST', url, headers: { ...accept, ...headers }, payload: calls[url] })
  return { status: response.statusCode, code: response.statusCode === 403 ? codeOf(url, response.json()) : undefined }
}

/** Our code in the door's JSON-RPC error: MCP's data is the standard body, A2A's the ErrorInfo reason. */
const codeOf = (url: string, body: { error: { data: any } }) => url === '/mcp' ? body.error.data.code : body.error.data[0].reason

test('listening on loopback, /mcp and /a2a answer a loopback Host or PUBLIC_BASE_URL\'s, and refuse a rebound name', async (t) => {
  const app = await build(t, { env: { HOST: '127.0.0.1', PUBLIC_BASE_URL: 'https://apiary.example.com' } })
  for (const url of ['/mcp', '/a2a'] as const) {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', 'localhost', '[::1]:3000', 'apiary.example.com', 'APIARY.example.com']) {
      t.equal((await call(app, url, { host })).status, 200, `${url}, Host ${host}`)
    }
    for (const host of ['evil.example.com', 'evil.example.com:3000', '127.0.0.1.nip.io', 'a@127.0.0.1', 'localhost.evil.example.com']) {
      t.same(await call(app, url, { host }), { status: 403, code: 'HOST_FORBIDDEN' }, `${url}, Host ${host}`)
    }
    t.same(await call(app, url, { host: 'evil.example.com', origin: 'http://evil.example.com' }), { status: 403, code: 'HOST_FORBIDDEN' },
      `${url}: the rebinding attack (the conformance suite's)`)
    t.equal((await call(app, url, { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' })).status, 200, `${url}: the loopback page itself`)
    t.equal((await call(app, url, { host: 'apiary.example.com', origin: 'https://apiary.example.com' })).status, 200, `${url}: PUBLIC_BASE_URL's page`)
    t.same(await call(app, url, { host: '127.0.0.1:3000', origin: 'http://localhost:8080' }), { status: 403, code: 'ORIGIN_FORBIDDEN' },
      `${url}: another local page is another origin`)
  }
  t.equal((await app.inject({ url: '/api/bees', headers: { host: 'evil.example.com' } })).statusCode, 200, 'the REST API is not concerned')
})

test('on any address, a browser Origin that is not in CORS_ORIGINS is refused on /mcp and /a2a only', async (t) => {
  const app = await build(t, { env: { CORS_ORIGINS: 'https://app.example.com' } })
  for (const url of ['/mcp', '/a2a'] as const) {
    t.equal((await call(app, url, { host: 'anything.example.com' })).status, 200, `${url}: no Origin, no browser: served`)
    t.equal((await call(app, url, { origin: 'https://app.example.com' })).status, 200, `${url}: a listed origin`)
    for (const origin of ['https://evil.example.com', 'null', 'https://app.example.com.evil.example.com', 'http://app.example.com']) {
      t.same(await call(app, url, { origin }), { status: 403, code: 'ORIGIN_FORBIDDEN' }, `${url}: Origin ${origin}`)
    }
    t.same(await call(app, url, { host: 'evil.example.com', origin: 'http://evil.example.com' }), { status: 403, code: 'ORIGIN_FORBIDDEN' },
      `${url}: same Host and Origin is no proof of anything off loopback`)
  }
  const rest = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: { origin: 'https://evil.example.com' }, payload: { text: 'Hello there.' } })
  t.equal(rest.statusCode, 200, 'the REST API answers (CORS keeps the answer from the page)')
})
