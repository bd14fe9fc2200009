import zlib from 'node:zlib'
import { test } from 'tap'
import { build } from '../../helper.js'

const url = '/api/bees/text-summarizer/execute'
const text = 'Café au lait is warm. Crème brûlée is sweet. Both are French.'
const json = JSON.stringify({ text })
const post = (app: Awaited<ReturnType<typeof build>>, headers: Record<string, string>, payload: string | Buffer) =>
  app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload })

test('UTF-8 bodies are read as UTF-8, with or without charset, in any case', async (t) => {
  const app = await build(t)
  for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"']) {
    const response = await post(app, { 'content-type': contentType }, json)
    t.equal(response.statusCode, 200, contentType)
    t.match(response.json().result.summary, 'Café', `${contentType}: é arrives intact`)
  }
})

test('other charsets are a 415, bytes that are not UTF-8 a 400, never U+FFFD in the input', async (t) => {
  const app = await build(t)
  for (const [charset, bytes] of [['latin1', Buffer.from(json, 'latin1')], ['ISO-8859-1', Buffer.from(json, 'latin1')], ['utf-16', Buffer.from(json, 'utf16le')], ['utf-16le', Buffer.from(json, 'utf16le')]] as const) {
    const response = await post(app, { 'content-type': `application/json; charset=${charset}` }, bytes)
    t.equal(response.statusCode, 415, charset)
    t.match(response.json(), { error: 'Unsupported Media Type', code: 'UNSUPPORTED_CHARSET', message: /UTF-8/ })
  }
  const latin1 = await post(app, {}, Buffer.from(json, 'latin1'))
  t.equal(latin1.statusCode, 400, 'Latin-1 bytes sent as UTF-8')
  t.match(latin1.json(), { code: 'INVALID_UTF8' })
})

test('gzip, deflate and br bodies are decoded; other codings are a 415', async (t) => {
  const app = await build(t)
  for (const [coding, bytes] of [['gzip', zlib.gzipSync(json)], ['x-gzip', zlib.gzipSync(json)], ['GZIP', zlib.gzipSync(json)], ['deflate', zlib.deflateSync(json)], ['br', zlib.brotliCompressSync(json)], ['identity', Buffer.from(json)]] as const) {
    const response = await post(app, { 'content-encoding': coding }, bytes)
    t.equal(response.statusCode, 200, coding)
    t.match(response.json().result.summary, 'Café', `${coding}: decoded before parsing`)
  }
  for (const coding of ['zstd', 'compress', 'gzip, br']) {
    const response = await post(app, { 'content-encoding': coding }, json)
    t.equal(response.statusCode, 415, coding)
    t.match(response.json(), { code: 'UNSUPPORTED_CONTENT_ENCODING' })
  }
  for (const [name, bytes] of [['plain bytes', Buffer.from(json)], ['truncated', zlib.gzipSync(json).subarray(0, 20)]] as const) {
    const response = await post(app, { 'content-encoding': 'gzip' }, bytes)
    t.equal(response.statusCode, 400, `${name} as gzip`)
    t.match(response.json(), { code: 'INVALID_CONTENT_ENCODING' })
  }
})

test('a compressed body counts against BODY_LIMIT_BYTES once decoded: a zip bomb is a 413, and stopped', async (t) => {
  const app = await build(t, { env: { BODY_LIMIT_BYTES: String(16 * 1024 * 1024) } })
  // Gzip members concatenate: 5,000 of 1 MB each, about 5 MB on the wire and 5 GB decoded.
  const member = zlib.gzipSync(Buffer.alloc(1024 * 1024, 'a'))
  const bomb = Buffer.concat([zlib.gzipSync('{"text":"'), ...Array.from({ length: 5000 }, () => member)])
  t.ok(bomb.length < 16 * 1024 * 1024, `${bomb.length} bytes compressed, under the limit`)
  const started = Date.now()
  const response = await post(app, { 'content-encoding': 'gzip' }, bomb)
  t.equal(response.statusCode, 413)
  t.match(response.json(), { code: 'PAYLOAD_TOO_LARGE', message: 'The decompressed body is larger than the 16 MiB this service accepts (BODY_LIMIT_BYTES).' })
  t.ok(Date.now() - started < 2000, 'refused without decoding the rest')
  t.equal((await app.inject('/health')).statusCode, 200, 'the server still answers')
})

test('an encoded body is still refused 401 before decoding on protected routes', async (t) => {
  const app = await build(t)
  const response = await app.inject({ method: 'POST', url: '/api/wallets', headers: { 'content-type': 'application/json', 'content-encoding': 'zstd' }, payload: '{}' })
  t.equal(response.statusCode, 401)
})
