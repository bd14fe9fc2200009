import { test } from 'tap'
import { jsonBodyProblem } from '../../../plugins/json-bodies.js'
import { MAX_JSON_DEPTH } from '../../../src/core/json-depth.js'
import { backends } from '../../databases.js'
import { startFakeBee } from '../../fake-bee.js'
import { adminHeaders, build } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'

const json = { 'content-type': 'application/json' }
const nested = (levels: number, inner = '0') => '['.repeat(levels) + inner + ']'.repeat(levels)

test('the summarizer\'s maxLength is bounded: huge numbers are a 400, not a 500', async (t) => {
  const app = await build(t)
  const execute = (maxLength: string) => app.inject({
    method: 'POST',
    url: '/api/bees/text-summarizer/execute',
    headers: json,
    payload: `{"text":"Hello world. This is a test.","maxLength":${maxLength}}`
  })
  for (const maxLength of ['1e300', '9007199254740993', '1000001']) {
    const response = await execute(maxLength)
    t.equal(response.statusCode, 400, maxLength)
    t.match(response.json(), { code: 'VALIDATION_FAILED', details: [{ field: '/maxLength' }] })
  }
  t.equal((await execute('1000000')).statusCode, 200, 'the largest budget still runs')
})

test('jsonBodyProblem: depth up to the limit, NUL anywhere', async (t) => {
  t.equal(jsonBodyProblem(JSON.parse(nested(MAX_JSON_DEPTH))), null, `${MAX_JSON_DEPTH} levels are fine`)
  t.match(jsonBodyProblem(JSON.parse(nested(MAX_JSON_DEPTH + 1))), { statusCode: 400, code: 'BODY_TOO_DEEP' })
  t.match(jsonBodyProblem(JSON.parse(`{"a":${nested(MAX_JSON_DEPTH)}}`)), { code: 'BODY_TOO_DEEP' }, 'objects count as levels')
  t.equal(jsonBodyProblem({ text: 'plain', n: 1, b: true, z: null, list: ['a', 2] }), null)
  t.equal(jsonBodyProblem(42), null)
  t.match(jsonBodyProblem('a\u0000b'), { code: 'NUL_CHARACTER', message: /in the body;/ })
  t.match(jsonBodyProblem({ a: { 'b/c': ['x', 'y\u0000'] } }), { code: 'NUL_CHARACTER', message: /in \/a\/b~1c\/1;/ })
  t.match(jsonBodyProblem({ a: { 'k\u0000': 1 } }), { code: 'NUL_CHARACTER', message: /in a key of \/a;/ })
  t.match(jsonBodyProblem({ ['x'.repeat(500)]: '\u0000' }), { message: /…;/ }, 'a long pointer is cut short')
})

test('deeply nested bodies are a 400 on every route, before idempotency or the Bee see them', async (t) => {
  const app = await build(t)
  const deep = `{"text":"hi there","x":${nested(10_000)}}`
  for (const headers of [json, { ...json, 'idempotency-key': 'deep-1' }]) {
    const response = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers, payload: deep })
    t.equal(response.statusCode, 400)
    t.same(Object.keys(response.json()).sort(), ['code', 'error', 'message'])
    t.match(response.json(), { error: 'Bad Request', code: 'BODY_TOO_DEEP', message: /64 levels/ })
    t.ok(response.headers['x-request-id'])
  }
  const admin = await app.inject({ method: 'POST', url: '/api/wallets', headers: { ...adminHeaders, ...json }, payload: `{"x":${nested(100)}}` })
  t.match(admin.json(), { code: 'BODY_TOO_DEEP' }, 'admin routes too')
  // 1,000,000 levels: the most the default body limit allows.
  const deepest = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: json, payload: nested(1_000_000, '') })
  t.match(deepest.json(), { code: 'BODY_TOO_DEEP' })
  const shallow = await app.inject({
    method: 'POST', url: '/api/bees/text-summarizer/execute', headers: json, payload: `{"text":"Hello there.","x":${nested(MAX_JSON_DEPTH - 1)}}`
  })
  t.equal(shallow.statusCode, 200, 'nesting within the limit is accepted (additional properties are kept)')
})

test('a deep body never reaches a remote Bee', async (t) => {
  const fake = await startFakeBee()
  t.teardown(() => fake.close())
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('deep-shouter', `${fake.url}/shout`))
  const response = await app.inject({
    method: 'POST', url: '/api/bees/deep-shouter/execute', headers: json, payload: `{"text":"hi there","x":${nested(10_000)}}`
  })
  t.equal(response.statusCode, 400)
  t.equal(response.json().code, 'BODY_TOO_DEEP')
  t.equal(fake.calls.length, 0)
})

test('prototype poisoning is still refused by the JSON parser', async (t) => {
  const app = await build(t)
  for (const payload of ['{"text":"hi there","__proto__":{"x":1}}', '{"text":"hi there","constructor":{"prototype":{"x":1}}}']) {
    const response = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: json, payload })
    t.equal(response.statusCode, 400)
    t.equal(response.json().code, 'INVALID_JSON')
  }
  const ok = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '{"text":"Hello there."}' })
  t.equal(ok.statusCode, 200, 'JSON with a charset parameter still parses')
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: json, payload: '{"text":' })).json().code, 'INVALID_JSON')
})

for (const backend of backends) {
  test(`NUL characters in a body are a 400 on ${backend.name}, and nothing is stored`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const app = await build(t, { env: { DATABASE_URL: database.url } })
    const post = (url: string, payload: string) => app.inject({ method: 'POST', url, headers: { ...adminHeaders, ...json }, payload })
    const attempts: Array<[string, string]> = [
      ['/api/wallets', '{"label":"a\\u0000b"}'],
      ['/api/wallets', '{"label":"ok","extra":{"a\\u0000":1}}'],
      ['/api/publishers', '{"name":"a\\u0000b","email":"a@example.com"}'],
      ['/api/bees/text-summarizer/execute', '{"text":"Hello there.","tags":["x","\\u0000"]}']
    ]
    for (const [url, payload] of attempts) {
      const response = await post(url, payload)
      t.equal(response.statusCode, 400, `${url} ${payload}`)
      t.match(response.json(), { error: 'Bad Request', code: 'NUL_CHARACTER', message: /NUL/ })
    }
    const listed = await app.inject({ url: '/api/wallets', headers: adminHeaders })
    t.same(listed.json().wallets, [], 'no wallet was created')
    t.equal((await post('/api/wallets', '{"label":"a\\\\u0000b"}')).statusCode, 201, 'an escaped backslash before u0000 is plain text')
  })
}

test('a body over the limit is told the limit, in a unit a person reads', async (t) => {
  for (const [limit, said] of [[String(2 * 1024 * 1024), '2 MiB'], [String(1.5 * 1024 * 1024), '1.5 MiB'], ['524288', '512 KiB'], ['5000', '5,000 bytes']] as const) {
    const app = await build(t, { env: { BODY_LIMIT_BYTES: limit } })
    const response = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: json, payload: JSON.stringify({ text: 'x'.repeat(Number(limit)) }) })
    t.equal(response.statusCode, 413)
    t.same(response.json(), {
      error: 'Payload Too Large',
      code: 'PAYLOAD_TOO_LARGE',
      message: `The request body is larger than the ${said} this service accepts (BODY_LIMIT_BYTES).`
    }, `BODY_LIMIT_BYTES=${limit}`)
  }
})

test('a body that is not JSON is told where, in the service\'s words, without its own text quoted back', async (t) => {
  const app = await build(t)
  const cases = [
    ['{"text": ', 'at line 1, column 10, expected the rest of the JSON, but the body ends there'],
    ['{"text": "hi",\n "maxLength": tru}', 'at line 2, column 15, expected a value (an object, array, string, number, true, false or null)'],
    ['{\'secret-text\': 1}', 'at line 1, column 2, expected a property name in double quotes'],
    ['{"text": "hi"} trailing-secret', 'at line 1, column 16, expected nothing more after the JSON value']
  ]
  for (const [payload, where] of cases) {
    const response = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: json, payload })
    t.equal(response.statusCode, 400)
    t.same(response.json(), { error: 'Bad Request', code: 'INVALID_JSON', message: `The body is not valid JSON: ${where}.` })
    t.notMatch(response.json().message, /content-type|secret|tru\b/, 'neither Fastify\'s sentence nor the body')
  }
  const poisoned = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: json, payload: '{"text":"hi","__proto__":{}}' })
  t.match(poisoned.json(), { code: 'INVALID_JSON', message: /"__proto__" key/ })
})
