import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { SAFE_FORMATS } from '../../src/core/formats.js'
import { build } from '../helper.js'
import { startFakeBee } from '../fake-bee.js'
import { beeBody, createPublisher, publish } from '../publishing-helper.js'

type Tap = Parameters<typeof build>[0]

const numeric = new Set(['int32', 'int64', 'float', 'double'])
const annotations = new Set(['password', 'binary'])
const stringFormats = Object.keys(SAFE_FORMATS).filter((name) => !numeric.has(name) && !annotations.has(name))

/** A published Bee with one property per allowed format, served by a listening server. */
async function listeningBee (t: Tap, properties: Record<string, unknown>) {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('formats', fake.url, { inputSchema: { type: 'object', properties } }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  // The models load after listening and hold the event loop by design (until /ready); what is timed here is the checks.
  await app.warmUp.start()
  return { app, base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` }
}

/**
 * Runs `attack` while /health is polled over HTTP, back to back, and returns the slowest /health
 * answer. A poll is always in flight, so a check that blocks the event loop delays one by as long as
 * it blocks.
 */
async function slowestHealth (base: string, attack: () => Promise<void>): Promise<number> {
  const attacked = new AbortController()
  let slowest = 0
  const poll = (async () => {
    while (!attacked.signal.aborted) {
      const started = performance.now()
      await (await fetch(`${base}/health`)).arrayBuffer()
      slowest = Math.max(slowest, performance.now() - started)
    }
  })()
  try {
    await attack()
  } finally {
    attacked.abort()
    await poll
  }
  return slowest
}

async function execute (base: string, body: unknown) {
  const started = performance.now()
  const response = await fetch(`${base}/api/bees/formats/execute`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body)
  })
  const answer = await response.json() as { code?: string }
  return { status: response.status, code: answer.code, ms: performance.now() - started }
}

test('the issue\'s format "url" string is refused at once, and /health stays fast meanwhile', async (t) => {
  const { base } = await listeningBee(t, { u: { type: 'string', format: 'url', maxLength: 200 } })
  let answer = { status: 0, code: undefined as string | undefined, ms: 0 }
  const slowest = await slowestHealth(base, async () => {
    answer = await execute(base, { u: `http://[${':'.repeat(60_000)}` })
  })
  t.equal(answer.status, 400)
  t.equal(answer.code, 'VALIDATION_FAILED')
  t.ok(answer.ms < 1000, `answered in ${Math.round(answer.ms)} ms`)
  t.ok(slowest < 500, `/health answered within 500 ms while it was checked (slowest ${Math.round(slowest)} ms)`)
})

/** What a format's checker reads first, so the repeated part reaches the checker's deeper states. */
const prefixes: Record<string, string> = {
  time: '00:00:00.',
  'date-time': '2020-01-01T00:00:00.',
  'iso-time': '00:00:00.',
  'iso-date-time': '2020-01-01 00:00:00.',
  duration: 'PT',
  uri: 'a:',
  'uri-reference': 'a://',
  url: 'http://',
  email: 'a@',
  'json-pointer-uri-fragment': '#'
}
/** Runs of what makes regexes backtrack: separators, digits, letters and the format's own punctuation. */
const runs = [':', '/', '%', '1', '1.', '1:', 'a', 'a-', 'a.', 'a@', 't', '~0', '{a', '[', '::1:', '-', ' ']
const LENGTH = 100_000

test('every allowed format checks 100,000-character adversarial strings in linear time', async (t) => {
  const properties = Object.fromEntries(Object.keys(SAFE_FORMATS).map((name) =>
    [name, { type: numeric.has(name) ? 'number' : 'string', format: name }]))
  const { base } = await listeningBee(t, properties)
  const slow: string[] = []
  const notRefused: string[] = []
  let sent = 0
  const slowest = await slowestHealth(base, async () => {
    for (const name of stringFormats) {
      for (const run of runs) {
        // A trailing " ~" makes each string invalid for every format, so each is checked to the end.
        const value = (prefixes[name] ?? '') + run.repeat(Math.ceil(LENGTH / run.length)) + ' ~'
        const answer = await execute(base, { [name]: value })
        sent++
        if (answer.status !== 400 || answer.code !== 'VALIDATION_FAILED') notRefused.push(`${name} × "${run}": ${answer.status}`)
        if (answer.ms > 500) slow.push(`${name} × "${run}": ${Math.round(answer.ms)} ms`)
      }
    }
  })
  t.equal(sent, stringFormats.length * runs.length)
  t.same(notRefused, [], 'each is a 400 VALIDATION_FAILED')
  t.same(slow, [], 'each is answered within 500 ms')
  t.ok(slowest < 500, `/health answered within 500 ms throughout (slowest ${Math.round(slowest)} ms)`)
})

/** A value each format accepts and one it refuses, so the linear checks keep ajv-formats' meaning. */
const samples: Record<string, [unknown, unknown]> = {
  date: ['2024-02-29', '2023-02-29'],
  time: ['23:59:59Z', '24:00:00Z'],
  'date-time': ['2026-11-23T14:19:11.5+01:00', '2026-11-23 14:19'],
  'iso-time': ['10:00:00', '10:00'],
  'iso-date-time': ['2026-11-23 10:00:00', '2026-11-23'],
  duration: ['P1Y2M3DT4H5M6S', 'PT'],
  uri: ['https://example.com/a?b#c', '/relative/only'],
  'uri-reference': ['../a?b', 'a b'],
  'uri-template': ['https://example.com/{id}', 'https://example.com/{id'],
  url: ['https://example.com:8080/path', 'http://192.168.1.1/'],
  email: ['someone@example.com', 'someone@'],
  hostname: ['api.example.com', '-bad-.example.com'],
  ipv4: ['192.0.2.1', '256.0.0.1'],
  ipv6: ['2001:db8::1', '2001:db8:::1'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456'],
  'json-pointer': ['/a/~0b', 'a/b'],
  'json-pointer-uri-fragment': ['#/a/b', '/a/b'],
  'relative-json-pointer': ['1/a', '/a'],
  byte: ['aGVsbG8=', 'aGVsbG8'],
  int32: [2147483647, 2147483648],
  int64: [2 ** 53, 1.5],
  float: [1.5, 'not checked: a number format ignores strings'],
  double: [1.5, 'not checked: a number format ignores strings']
}

async function injectBody (app: FastifyInstance, body: unknown) {
  return await app.inject({ method: 'POST', url: '/api/bees/formats/execute', payload: body as object })
}

test('the allowed formats accept and refuse what ajv-formats does', async (t) => {
  const properties = Object.fromEntries(Object.keys(SAFE_FORMATS).map((name) =>
    [name, { type: numeric.has(name) ? 'number' : 'string', format: name }]))
  const { app } = await listeningBee(t, properties)
  t.same(Object.keys(samples).sort(), [...stringFormats, ...numeric].sort(), 'every checking format has samples')
  for (const [name, [valid, invalid]] of Object.entries(samples)) {
    t.equal((await injectBody(app, { [name]: valid })).statusCode, 200, `${name} accepts ${String(valid)}`)
    if (typeof invalid === 'string' && numeric.has(name)) continue
    t.equal((await injectBody(app, { [name]: invalid })).statusCode, 400, `${name} refuses ${String(invalid)}`)
  }
})

test('a format without a linear-time check is refused at publish, naming it', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  for (const format of ['regex', 'made-up', 'idn-email']) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/bees',
      headers: publisher.headers,
      payload: beeBody('formats', fake.url, { inputSchema: { type: 'object', properties: { x: { type: 'string', format } } } })
    })
    t.equal(response.statusCode, 400, format)
    t.match(response.json(), {
      code: 'INVALID_SCHEMA',
      message: new RegExp(`inputSchema/properties/x: format "${format}" is not supported: .*linear.*date-time`)
    }, format)
  }
})
