import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { test } from 'tap'
import { build } from '../helper.js'

/**
 * Door × refusal: what the app refuses before a door's handler runs reaches each door in that door's shape,
 * with the status and headers REST gives it. JSON-RPC doors wrap the standard body: MCP in `error.data`,
 * A2A in the Struct of `error.data`. What no route takes (405, 404 under a door) is the standard body everywhere.
 */

type Door = 'REST' | 'MCP' | 'A2A'
const doors: Array<{ door: Door, url: string, body: object }> = [
  { door: 'REST', url: '/api/bees/text-summarizer/execute', body: { text: 'Hello there, friend.' } },
  { door: 'MCP', url: '/mcp', body: { jsonrpc: '2.0', id: 1, method: 'ping' } },
  { door: 'A2A', url: '/a2a', body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } } }
]
const headers = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', 'a2a-version': '1.0' }

/** The standard body a door's answer carries, after checking the door's envelope around it. */
function standardBody (t: Test, door: Door, json: Record<string, any>, jsonRpc: boolean): Record<string, unknown> {
  if (door === 'REST' || !jsonRpc) return json
  t.match(json, { jsonrpc: '2.0', id: null, error: { code: Number, message: String } }, `${door}: a JSON-RPC error response`)
  if (door === 'MCP') return json.error.data
  t.equal(json.error.data[0]['@type'], 'type.googleapis.com/google.rpc.ErrorInfo')
  t.equal(json.error.data[0].reason, json.error.data[1].value.code, 'A2A: our code is the ErrorInfo reason')
  return json.error.data[1].value
}

interface Expected { status: number, code: string, jsonRpc?: boolean, headers?: Record<string, RegExp> }

function check (t: Test, door: Door, what: string, answer: { statusCode: number, headers: Record<string, unknown>, body: string }, expected: Expected) {
  t.equal(answer.statusCode, expected.status, `${door} ${what}: status`)
  t.match(answer.headers['content-type'], /^application\/json/, `${door} ${what}: JSON`)
  const body = standardBody(t, door, JSON.parse(answer.body), expected.jsonRpc ?? true)
  t.same(Object.keys(body).slice(0, 3), ['error', 'code', 'message'], `${door} ${what}: error, code, message`)
  t.equal(body.code, expected.code, `${door} ${what}: code`)
  for (const [name, value] of Object.entries(expected.headers ?? {})) t.match(answer.headers[name], value, `${door} ${what}: ${name}`)
}

const post = (app: FastifyInstance, url: string, extra: Record<string, string>, payload: string | Buffer, remoteAddress?: string) =>
  app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json', ...extra }, payload, remoteAddress })

test('refusals before the handler: 413, 415, a bad encoding, 405, 404, 429', async (t) => {
  const app = await build(t, { env: { BODY_LIMIT_BYTES: '4096', RATE_LIMIT_ANONYMOUS_PER_WINDOW: '8', RATE_LIMIT_WINDOW_SECONDS: '600' } })
  for (const [index, { door, url, body }] of doors.entries()) {
    // An address per door: each door meets the limit on its own.
    const address = `10.0.0.${index + 1}`
    const json = JSON.stringify(body)
    check(t, door, 'too large', await post(app, url, {}, JSON.stringify({ ...body, pad: 'a'.repeat(5000) }), address),
      { status: 413, code: 'PAYLOAD_TOO_LARGE' })
    check(t, door, 'not JSON', await post(app, url, { 'content-type': 'text/plain' }, 'hello', address), { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' })
    check(t, door, 'zstd', await post(app, url, { 'content-encoding': 'zstd' }, json, address), { status: 415, code: 'UNSUPPORTED_CONTENT_ENCODING' })
    check(t, door, 'not gzip', await post(app, url, { 'content-encoding': 'gzip' }, json, address), { status: 400, code: 'INVALID_CONTENT_ENCODING' })
    check(t, door, 'DELETE', await app.inject({ method: 'DELETE', url, headers, remoteAddress: address }),
      { status: 405, code: 'METHOD_NOT_ALLOWED', jsonRpc: false, headers: { allow: /POST/ } })
    check(t, door, 'under the door', await post(app, `${url}/nope`, {}, json, address), { status: 404, code: 'ROUTE_NOT_FOUND', jsonRpc: false })
    // Four counted so far (405 and 404 take no route, so no limit): four more reach the limit.
    for (let i = 0; i < 4; i++) t.equal((await post(app, url, {}, json, address)).statusCode, 200, `${door}: under the limit`)
    check(t, door, 'over the limit', await post(app, url, {}, json, address), {
      status: 429,
      code: 'RATE_LIMITED',
      headers: { 'retry-after': /^\d+$/, 'ratelimit-limit': /^8$/, 'ratelimit-remaining': /^0$/, 'ratelimit-reset': /^\d+$/ }
    })
  }
})

test('an overloaded instance refuses every door with 503 OVERLOADED and Retry-After', async (t) => {
  const app = await build(t, { env: { PRESSURE_MAX_HEAP_USED_BYTES: '1', PRESSURE_RETRY_AFTER_SECONDS: '7' } })
  // The heap is sampled once a second.
  await sleep(1200)
  for (const { door, url, body } of doors) {
    check(t, door, 'overloaded', await post(app, url, {}, JSON.stringify(body)), { status: 503, code: 'OVERLOADED', headers: { 'retry-after': /^7$/ } })
  }
})

async function rawExchange (port: number, bytes: string): Promise<{ statusCode: number, headers: Record<string, string>, body: string }> {
  const answer = await new Promise<string>((resolve) => {
    let received = ''
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes))
    socket.on('data', (chunk) => { received += String(chunk) })
    socket.on('error', () => {})
    socket.on('close', () => resolve(received))
  })
  const [head = '', body = ''] = answer.split('\r\n\r\n')
  const [status = '', ...lines] = head.split('\r\n')
  const parsed = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]))
  return { statusCode: Number(status.split(' ')[1]), headers: parsed, body }
}

test('a request without Host is refused in each door\'s shape', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  for (const { door, url, body } of doors) {
    const json = JSON.stringify(body)
    const answer = await rawExchange(port, `POST ${url} HTTP/1.1\r\nContent-Type: application/json\r\nAccept: ${headers.accept}\r\n` +
      `Content-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`)
    check(t, door, 'no Host', answer, { status: 400, code: 'HOST_REQUIRED' })
  }
})
