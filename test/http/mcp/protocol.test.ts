import { test } from 'tap'
import { listening } from './clients.js'

const post = (url: URL, body: string, headers: Record<string, string> = {}) => fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  body
})

test('malformed JSON-RPC is answered per the protocol, never with a 5xx', async (t) => {
  const { url } = await listening(t, { env: { BODY_LIMIT_BYTES: '4096' } })
  const cases: Array<[string, string, number, number]> = [
    ['not JSON', '{"jsonrpc":', 400, -32700],
    ['not a JSON-RPC message', '{"hello":"world"}', 400, -32600],
    ['an empty batch', '[]', 400, -32600],
    ['too deep', `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}`, 400, -32600]
  ]
  for (const [what, body, status, code] of cases) {
    const response = await post(url, body)
    t.equal(response.status, status, what)
    t.match(response.headers.get('content-type'), /^application\/json/, what)
    const answer = await response.json() as { jsonrpc: string, error: { code: number } }
    t.equal(answer.jsonrpc, '2.0', what)
    t.equal(answer.error.code, code, what)
  }
  const deep = await (await post(url, cases[3]![1])).json() as { error: { data: { code: string } } }
  t.equal(deep.error.data.code, 'BODY_TOO_DEEP', 'our code in data')

  const unknown = await post(url, '{"jsonrpc":"2.0","id":7,"method":"tools/frobnicate"}')
  t.equal(unknown.status, 200)
  t.same(await unknown.json(), { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found' } })

  const refusals: Array<[string, Response, number, string]> = [
    ['a media type that is not JSON', await post(url, 'hello', { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a charset that is not UTF-8', await post(url, '{}', { 'content-type': 'application/json; charset=latin1' }), 415, 'UNSUPPORTED_CHARSET'],
    ['a NUL character', await post(url, '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"a\\u0000"}}'), 400, 'NUL_CHARACTER'],
    ['too large', await post(url, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(4096)}"}}`), 413, 'PAYLOAD_TOO_LARGE']
  ]
  for (const [what, response, status, code] of refusals) {
    t.equal(response.status, status, what)
    t.match(await response.json(), { jsonrpc: '2.0', id: null, error: { code: -32600, data: { code } } }, what)
  }
})

test('a stateless endpoint: no session, GET and DELETE are 405, requests need no handshake', async (t) => {
  const { url } = await listening(t)
  for (const method of ['GET', 'DELETE']) {
    const response = await fetch(url, { method, headers: { accept: 'text/event-stream' } })
    t.equal(response.status, 405, method)
    t.equal(response.headers.get('allow'), 'POST', method)
  }
  const initialize = await post(url, JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
  }))
  t.equal(initialize.headers.get('mcp-session-id'), null, 'no session id')
  t.match(await initialize.json(), { result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'apiary' } } })
  const list = await post(url, '{"jsonrpc":"2.0","id":2,"method":"tools/list"}', { 'mcp-protocol-version': '2025-06-18' })
  t.equal(list.status, 200)
  t.match(list.headers.get('content-type'), /^application\/json/, 'JSON, not an SSE stream')
  t.equal(((await list.json()) as { result: { tools: Array<{ name: string }> } }).result.tools[0]?.name, 'find_bees')
  const badCursor = await post(url, '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"!!"}}')
  t.match(await badCursor.json(), { id: 3, error: { code: -32602, data: { code: 'INVALID_CURSOR' } } })
})

test('on 2026-07-28 a request carries its own envelope, and the list says it may not be cached', async (t) => {
  const { url } = await listening(t)
  const envelope = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {}
  }
  const response = await post(url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }), {
    'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list'
  })
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^application\/json/)
  const { result } = await response.json() as { result: Record<string, unknown> }
  t.match(result, { ttlMs: 0, cacheScope: 'public', tools: [{ name: 'find_bees' }] }, 'fresh at every request, the same for every caller')
})
