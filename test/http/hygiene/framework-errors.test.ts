import { connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { test } from 'tap'
import { adminHeaders, build } from '../../helper.js'

test('errors Fastify meets before routing answer in the standard shape, with the request id', async (t) => {
  const lines: string[] = []
  const app = await build(t, { logLines: lines })
  const cases = [
    { url: '/api/wallets/%zz', status: 400, code: 'BAD_URL' },
    { url: '/api/bees/%E0%A4%A/execute', status: 400, code: 'BAD_URL' },
    { url: `/api/wallets/${'x'.repeat(300)}`, status: 414, code: 'PARAM_TOO_LONG' }
  ]
  for (const { url, status, code } of cases) {
    const response = await app.inject({ url, headers: adminHeaders })
    t.equal(response.statusCode, status, url)
    t.same(Object.keys(response.json()).sort(), ['code', 'error', 'message'], 'no statusCode or Fastify code')
    t.match(response.json(), { code, message: String })
    t.match(response.headers['x-request-id'], /^[0-9a-f-]{36}$/)
    const logged = lines.map((line) => JSON.parse(line)).find((line) => line.reqId === response.headers['x-request-id'])
    t.match(logged, { msg: 'request completed', statusCode: status }, 'one log line, under the same request id')
  }
  const forwarded = await app.inject({ url: '/api/wallets/%zz', headers: { 'x-request-id': 'gateway-7' } })
  t.equal(forwarded.headers['x-request-id'], 'gateway-7', 'a gateway\'s id is kept here too')
})

/** Sends raw bytes and returns everything the server wrote before it closed the connection. */
async function rawExchange (port: number, bytes: string): Promise<string> {
  return await new Promise((resolve) => {
    let answer = ''
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes))
    socket.on('data', (chunk) => { answer += String(chunk) })
    socket.on('error', () => {})
    socket.on('close', () => resolve(answer))
  })
}

function parseAnswer (answer: string): { status: number, headers: string, body: unknown } {
  const [head = '', body = ''] = answer.split('\r\n\r\n')
  return { status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: JSON.parse(body) }
}

test('requests Node\'s HTTP parser refuses answer in the standard shape', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const body = '{"text":"Hello there, friend."}'

  const short = parseAnswer(await rawExchange(port,
    `POST /api/bees/text-summarizer/execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n${body}`))
  t.equal(short.status, 400, 'bytes beyond a short Content-Length')
  t.match(short.body, { error: 'Bad Request', code: 'BAD_REQUEST', message: /Content-Length/ })
  t.match(short.headers, /content-type: application\/json/)

  const garbage = parseAnswer(await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n'))
  t.equal(garbage.status, 400)
  t.match(garbage.body, { code: 'BAD_REQUEST' })

  const huge = parseAnswer(await rawExchange(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
  t.equal(huge.status, 431)
  t.same(huge.body, { error: 'Request Header Fields Too Large', code: 'HEADERS_TOO_LARGE', message: 'The request headers are larger than this service accepts.' })

  const fine = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
  t.match(fine, /^HTTP\/1\.1 200/, 'a well-formed request is untouched')
})

test('a client that stops sending before its body is complete gets 408 and loses the connection', async (t) => {
  const app = await build(t, { env: { REQUEST_TIMEOUT_MS: '1000' } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo
  const started = performance.now()
  const answer = await new Promise<string>((resolve) => {
    let received = ''
    // Promises 100 bytes, sends 10, and keeps the connection open.
    const socket = connect(port, '127.0.0.1', () => socket.write(
      'POST /api/bees/text-summarizer/execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":"H'))
    socket.on('data', (chunk) => { received += String(chunk) })
    socket.on('error', () => {})
    socket.on('close', () => resolve(received))
  })
  const elapsed = performance.now() - started
  const { status, body } = parseAnswer(answer)
  t.equal(status, 408)
  t.same(body, { error: 'Request Timeout', code: 'REQUEST_TIMEOUT', message: 'The request was not received in time.' })
  t.ok(elapsed >= 1000 && elapsed < 5000, `answered after ${elapsed.toFixed(0)} ms, for a 1000 ms limit`)
})

test('what Node would answer with an empty body answers in the standard shape', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = app.server.address() as AddressInfo

  const noHost = parseAnswer(await rawExchange(port, 'GET /health HTTP/1.1\r\nConnection: close\r\n\r\n'))
  t.equal(noHost.status, 400, 'an HTTP/1.1 request must name its Host')
  t.same(noHost.body, { error: 'Bad Request', code: 'HOST_REQUIRED', message: 'An HTTP/1.1 request must carry a Host header.' })
  t.match(noHost.headers, /x-request-id: [0-9a-f-]{36}/, 'it went through Fastify, so it has a request id')
  const oldClient = await rawExchange(port, 'GET /health HTTP/1.0\r\n\r\n')
  t.match(oldClient, /^HTTP\/1\.1 200 /, 'HTTP/1.0 has no Host header to require')

  const expectation = parseAnswer(await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\n\r\n'))
  t.equal(expectation.status, 417)
  t.match(expectation.headers, /content-type: application\/json/)
  t.same(expectation.body, {
    error: 'Expectation Failed',
    code: 'EXPECTATION_FAILED',
    message: 'This service cannot meet "Expect: 200-ok"; send the request without it, or with Expect: 100-continue.'
  })

  const body = '{"text":"Hello there, friend."}'
  const continued = await rawExchange(port, 'POST /api/bees/text-summarizer/execute HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n' +
    `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
  t.match(continued, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /, '100-continue is still met')
})
