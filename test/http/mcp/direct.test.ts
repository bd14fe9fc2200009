import { test } from 'tap'
import type { CallContext } from '../../../src/http/mcp/call.js'
import { McpEndpoint } from '../../../src/http/mcp/endpoint.js'
import { build, createWallet } from '../../helper.js'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
const TEXT = 'The harvest was wonderful this year. Everyone in the village was delighted.'

/** The endpoint the route builds, on the app's registry and executor. */
async function setup (t: Parameters<typeof build>[0]) {
  const app = await build(t)
  const endpoint = new McpEndpoint({
    registry: app.registry,
    board: app.beeHealth.board,
    search: app.catalog.search,
    listing: app.catalog.listing,
    execute: (request) => app.executor.execute(request),
    executeOrStart: (request) => app.executor.executeOrStart(request, app.runs),
    runs: app.runs,
    runRetentionHours: app.config.RUN_RETENTION_HOURS,
    storeRefusal: (error) => app.storeHealth.refusal(error)
  })
  t.teardown(() => endpoint.close())
  const context = (walletToken?: string): CallContext => ({
    walletToken, idempotencyKey: undefined, requestId: 'req-direct', log: app.log, baseUrl: () => 'http://127.0.0.1'
  })
  return { app, endpoint, context }
}

/** Honey's timestamp is the time of each call: the one part of two answers to the same call that differs. */
const timeless = (text: string) => text.replace(/"ai\.apiary\/timestamp":"[^"]+"/, '"ai.apiary/timestamp":"…"')

test('the direct path and the SDK\'s web path give the same bytes for each kind of answer', async (t) => {
  const { app, endpoint, context } = await setup(t)
  // One wallet for each path, so that the balance each answer reports is the same.
  const wallets = [await createWallet(app, 10), await createWallet(app, 10)]
  const call = (id: number, params: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params })
  const cases: Array<[string, Record<string, unknown>, boolean]> = [
    ['success', call(1, { name: 'text-summarizer', arguments: { text: TEXT } }), false],
    ['a paid success', call(2, { name: 'sentiment-analyzer', arguments: { text: TEXT } }), true],
    ['arguments that fail the input schema', call(3, { name: 'text-summarizer', arguments: { text: 42 } }), false],
    ['payment required', call(4, { name: 'sentiment-analyzer', arguments: { text: TEXT } }), false],
    ['an unknown tool', call('five' as never, { name: 'no-such-bee', arguments: {} }), false],
    ['a tools/call without a name', call(6, { arguments: {} }), false],
    ['tools/list', { jsonrpc: '2.0', id: 7, method: 'tools/list' }, false],
    ['an unknown method', { jsonrpc: '2.0', id: 8, method: 'tools/frobnicate' }, false]
  ]
  for (const [what, message, paid] of cases) {
    const direct = await endpoint.answer(HEADERS, message, context(paid ? wallets[0]!.token : undefined))
    t.ok(direct !== undefined, `${what}: answered directly`)
    const web = new Request('http://apiary.invalid/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(message) })
    const response = await endpoint.serve(web, message, context(paid ? wallets[1]!.token : undefined))
    t.equal(response.status, 200, `${what}: the SDK answers 200 too`)
    t.equal(response.headers.get('content-type'), 'application/json', `${what}: in JSON`)
    t.equal(timeless(JSON.stringify(direct)), timeless(await response.text()), `${what}: the same answer`)
  }
  // The answers are what each case names, not two identical failures.
  const answer = async (message: Record<string, unknown>, walletToken?: string) =>
    await endpoint.answer(HEADERS, message, context(walletToken)) as Record<string, any>
  t.match(await answer(cases[0]![1]), { id: 1, result: { structuredContent: { summary: String } } })
  t.match(await answer(cases[1]![1], wallets[0]!.token), { result: { _meta: { 'ai.apiary/charge': { amount: 0.001 } } } })
  t.match(JSON.parse((await answer(cases[2]![1])).result.content[0].text), { code: 'VALIDATION_FAILED' })
  t.match(JSON.parse((await answer(cases[3]![1])).result.content[0].text), { code: 'WALLET_TOKEN_MISSING', x402Version: 2 })
  t.match(await answer(cases[4]![1]), { id: 'five', error: { code: -32602, data: { code: 'BEE_NOT_FOUND' } } })
  t.match(await answer(cases[5]![1]), { error: { code: -32602 } })
})

test('what the SDK\'s transport would not answer 200 in JSON is left to it', async (t) => {
  const { endpoint, context } = await setup(t)
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' }
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {}
  }
  const declined: Array<[string, Record<string, string>, unknown]> = [
    ['initialize', HEADERS, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }],
    ['a notification', HEADERS, { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['a batch', HEADERS, [list]],
    ['a 2026-07-28 request', { ...HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, { ...list, params: { _meta: envelope } }],
    ['an Accept without text/event-stream', { ...HEADERS, accept: 'application/json' }, list],
    ['a Content-Type that is not JSON', { ...HEADERS, 'content-type': 'text/plain' }, list],
    ['an unsupported protocol version', { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }, list],
    ['not a JSON-RPC message', HEADERS, { jsonrpc: '2.0', id: 1, method: 7 }]
  ]
  for (const [what, headers, message] of declined) {
    t.equal(await endpoint.answer(headers, message, context()), undefined, what)
  }
  const web = new Request('http://apiary.invalid/mcp', { method: 'POST', headers: { ...HEADERS, accept: 'application/json' }, body: JSON.stringify(list) })
  t.equal((await endpoint.serve(web, list, context())).status, 406, 'the SDK refuses what it declined')
})

test('over HTTP, a tools/call answers as the SDK does: 200, application/json, one JSON-RPC response', async (t) => {
  const app = await build(t)
  const response = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: HEADERS,
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'text-summarizer', arguments: { text: TEXT } } }
  })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/json/)
  t.match(response.json(), { jsonrpc: '2.0', id: 1, result: { structuredContent: { summary: String }, _meta: { 'ai.apiary/beeId': 'text-summarizer' } } })
})
