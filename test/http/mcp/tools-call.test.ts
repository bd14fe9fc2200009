import { test } from 'tap'
import { failure } from '../../../src/core/errors.js'
import { McpEndpoint } from '../../../src/http/mcp/endpoint.js'
import type { McpOptions } from '../../../src/http/mcp/options.js'
import { toolsCall } from '../../../src/http/mcp/tools-call.js'
import { build, createWallet } from '../../helper.js'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
const TEXT = 'The harvest was wonderful this year. Everyone in the village was delighted.'
const call = (id: unknown, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params })
const summarize = call(1, { name: 'text-summarizer', arguments: { text: TEXT } })

test('the fast path takes a plain 2025-era tools/call and leaves anything else to the SDK', async (t) => {
  const taken: Array<[string, unknown]> = [
    ['a call', summarize],
    ['a string id', call('one', { name: 'text-summarizer', arguments: { text: TEXT } })],
    ['no arguments', call(1, { name: 'text-summarizer' })],
    ['a wallet token and a progress token in _meta', call(1, { name: 'text-summarizer', arguments: {}, _meta: { 'ai.apiary/walletToken': 'x', progressToken: 7 } })]
  ]
  for (const [what, message] of taken) t.ok(toolsCall(HEADERS, message), what)
  t.ok(toolsCall({ ...HEADERS, 'mcp-protocol-version': undefined }, summarize), 'no MCP-Protocol-Version header')

  const left: Array<[string, unknown]> = [
    ['no id (a notification)', { jsonrpc: '2.0', method: 'tools/call', params: { name: 'text-summarizer' } }],
    ['a null id', call(null, { name: 'text-summarizer' })],
    ['a fractional id', call(1.5, { name: 'text-summarizer' })],
    ['another method', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['no params', { jsonrpc: '2.0', id: 1, method: 'tools/call' }],
    ['params without a name', call(1, { arguments: {} })],
    ['a name that is not a string', call(1, { name: 7 })],
    ['arguments that are an array', call(1, { name: 'text-summarizer', arguments: [1] })],
    ['arguments that are null', call(1, { name: 'text-summarizer', arguments: null })],
    ['a fractional progress token', call(1, { name: 'text-summarizer', _meta: { progressToken: 1.5 } })],
    ['a 2026-07-28 envelope claim in _meta', call(1, { name: 'text-summarizer', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } })],
    ['a retry field', call(1, { name: 'text-summarizer', requestState: 5 })],
    ['a task', call(1, { name: 'text-summarizer', task: { ttl: 5 } })],
    ['a member JSON-RPC does not have', { ...summarize, extra: true }],
    ['a batch', [summarize]]
  ]
  for (const [what, message] of left) t.equal(toolsCall(HEADERS, message), undefined, what)
  t.equal(toolsCall({ ...HEADERS, accept: 'application/json' }, summarize), undefined, 'an Accept without text/event-stream')
  t.equal(toolsCall({ ...HEADERS, 'content-type': 'text/plain' }, summarize), undefined, 'a Content-Type that is not JSON')
  t.equal(toolsCall({ ...HEADERS, 'mcp-protocol-version': '2026-07-28' }, summarize), undefined, 'the 2026-07-28 revision')
})

/** The parts of two answers to the same call that differ by nature: Honey's timestamp, the request id, the date, the rate limit's count. */
const timeless = (text: string) => text.replace(/"ai\.apiary\/timestamp":"[^"]+"/, '"ai.apiary/timestamp":"…"')
const varying = new Set(['date', 'x-request-id', 'ratelimit-remaining'])
const stable = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([name]) => !varying.has(name)))

test('over HTTP, the fast path answers each kind of tools/call with the SDK\'s status, headers and bytes', async (t) => {
  const app = await build(t)
  // One wallet for each path, so that the balance each answer reports is the same.
  const wallets = [await createWallet(app, 10), await createWallet(app, 10)]
  const paid = call(2, { name: 'sentiment-analyzer', arguments: { text: TEXT } })
  const cases: Array<[string, unknown, 'header' | 'meta' | null]> = [
    ['success', summarize, null],
    ['find_bees', call(3, { name: 'find_bees', arguments: { query: 'summarize' } }), null],
    ['a paid success, the wallet token in the header', paid, 'header'],
    ['a paid success, the wallet token in _meta', paid, 'meta'],
    ['a paid Bee without a wallet token (402 as a tool error)', paid, null],
    ['an unknown tool', call('four', { name: 'no-such-bee', arguments: {} }), null],
    ['arguments that fail the input schema', call(5, { name: 'text-summarizer', arguments: { text: 42 } }), null],
    ['find_bees with arguments that fail its schema', call(6, { name: 'find_bees', arguments: { limit: 0 } }), null],
    ['params of the wrong shape', call(7, { name: 'text-summarizer', arguments: [TEXT] }), null],
    ['params without a name', call(8, { arguments: {} }), null],
    ['no id', { jsonrpc: '2.0', method: 'tools/call', params: { name: 'text-summarizer', arguments: { text: TEXT } } }, null]
  ]
  /** Sends the call, paying with the wallet token where the case says; `batch` sends it as a batch of one. */
  const send = async (message: unknown, wallet: string, where: 'header' | 'meta' | null, batch = false) => {
    const one = where === 'meta' ? { ...message as object, params: { ...(message as { params: object }).params, _meta: { 'ai.apiary/walletToken': wallet } } } : message
    return await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: where === 'header' ? { ...HEADERS, 'x-registry-wallet-token': wallet } : HEADERS,
      payload: (batch ? [one] : one) as object
    })
  }
  for (const [what, message, where] of cases) {
    // A batch of one is never the fast path's: the SDK's own transport answers it, with the one response alone.
    const fast = await send(message, wallets[0]!.token, where)
    const sdk = await send(message, wallets[1]!.token, where, true)
    t.equal(fast.statusCode, sdk.statusCode, `${what}: the same status`)
    t.same(stable(fast.headers), stable(sdk.headers), `${what}: the same headers`)
    t.equal(timeless(fast.body), timeless(sdk.body), `${what}: the same bytes`)
  }
  // The answers are what each case names, not two identical failures.
  const answer = async (message: unknown, where: 'header' | 'meta' | null = null) => (await send(message, wallets[0]!.token, where)).json()
  t.match(await answer(summarize), { jsonrpc: '2.0', id: 1, result: { structuredContent: { summary: String }, _meta: { 'ai.apiary/beeId': 'text-summarizer' } } })
  t.match(await answer(cases[1]![1]), { result: { structuredContent: { bees: [{ id: 'text-summarizer' }] } } })
  t.match(await answer(paid, 'header'), { result: { _meta: { 'ai.apiary/charge': { amount: 0.001 } } } })
  t.match(await answer(paid, 'meta'), { result: { _meta: { 'ai.apiary/charge': { amount: 0.001 } } } })
  t.match(JSON.parse((await answer(paid)).result.content[0].text), { code: 'WALLET_TOKEN_MISSING', x402Version: 2 })
  t.match(await answer(cases[5]![1]), { id: 'four', error: { code: -32602, data: { code: 'BEE_NOT_FOUND' } } })
  t.match(JSON.parse((await answer(cases[6]![1])).result.content[0].text), { code: 'VALIDATION_FAILED' })
  t.match(await answer(cases[8]![1]), { id: 7, error: { code: -32602, message: /^Invalid tools\/call request/ } })
  t.equal((await send(cases[10]![1], '', null)).statusCode, 202, 'a notification is accepted with nothing to answer')
})

test('when the core fails, the fast path answers with the JSON-RPC error the SDK\'s server writes', async (t) => {
  const app = await build(t)
  const failures: Array<[string, McpOptions['execute'], Record<string, unknown>]> = [
    ['a 500 of the core (-32603 with its body)', async () => ({ ok: false, error: failure('INTERNAL_ERROR', 'The ledger is gone.') }),
      { error: { code: -32603, message: 'The ledger is gone.', data: { code: 'INTERNAL_ERROR' } } }],
    ['a throw (-32603 with its message)', async () => { throw new Error('Something broke') }, { error: { code: -32603, message: 'Something broke' } }],
    // What the executor does with it itself; a door's own reads (find_bees) answer the same.
    ['the ledger database away (a tool error saying STORE_UNAVAILABLE)', async () => { throw new Error('Connection terminated unexpectedly') },
      { result: { isError: true, content: [{ type: 'text', text: /"code":"STORE_UNAVAILABLE"/ }] } }]
  ]
  for (const [what, execute, answer] of failures) {
    const endpoint = new McpEndpoint({
      registry: app.registry,
      board: app.beeHealth.board,
      search: app.catalog.search,
      listing: app.catalog.listing,
      execute,
      executeOrStart: (request) => app.executor.executeOrStart(request, app.runs),
      runs: app.runs,
      runRetentionHours: app.config.RUN_RETENTION_HOURS,
      storeRefusal: (error) => app.storeHealth.refusal(error)
    })
    t.teardown(() => endpoint.close())
    const context = { walletToken: undefined, idempotencyKey: undefined, requestId: 'req-failing', log: app.log, baseUrl: () => 'http://127.0.0.1' }
    const fast = await endpoint.answer(HEADERS, summarize, context)
    const sdk = await endpoint.serve(new Request('http://apiary.invalid/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(summarize) }), summarize, context)
    t.equal(sdk.status, 200, `${what}: the SDK answers 200`)
    t.equal(JSON.stringify(fast), await sdk.text(), `${what}: the same bytes`)
    t.match(fast, { id: 1, ...answer }, what)
  }
})
