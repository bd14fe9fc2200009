import { test } from 'tap'
import { build } from '../helper.js'
import { startFakeBee } from '../fake-bee.js'
import { beeBody, createPublisher, publish } from '../publishing-helper.js'

/** 300,000 wrong-typed items: a 1.8 MB body, under the 2 MiB limit. */
const wrongItems = () => Array.from({ length: 300_000 }, () => 12345)

async function timed (send: () => Promise<{ statusCode: number, body: string }>) {
  const started = performance.now()
  const response = await send()
  return { response, ms: performance.now() - started }
}

test('a body with 300,000 wrong items gets a small 400, at once', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('tagger', fake.url, {
    inputSchema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } }
  }))

  const requests = {
    'a published Bee\'s execute': () => app.inject({ method: 'POST', url: '/api/bees/tagger/execute', payload: { tags: wrongItems() } }),
    'a route of the service (publish)': () => app.inject({
      method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('other', fake.url, { config: { primaryServices: wrongItems() } })
    })
  }
  for (const [what, send] of Object.entries(requests)) {
    const { response, ms } = await timed(send)
    t.equal(response.statusCode, 400, what)
    const error = JSON.parse(response.body)
    t.match(error, { code: 'VALIDATION_FAILED', message: /^The body is invalid: /, details: [{ field: /^\/(tags|config\/primaryServices)/ }] }, what)
    t.ok(response.body.length < 10_000, `${what}: the answer is ${response.body.length} bytes`)
    // A body this large is refused at its first error, not validated again for all of them. The bound leaves room for a
    // 2-core host running three other test files (1,071 ms seen on one, building and parsing the 300,000 items included).
    t.ok(ms < 2500, `${what}: answered in ${Math.round(ms)} ms`)
  }
})

test('a small body with several wrong fields gets a 400 naming each of them; a large one, its first', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('pair', fake.url, {
    inputSchema: {
      type: 'object',
      properties: { name: { type: 'string' }, count: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['name', 'count']
    }
  }))
  const execute = async (payload: unknown) => await app.inject({ method: 'POST', url: '/api/bees/pair/execute', payload: payload as Record<string, unknown> })

  const two = await execute({ name: 7, count: 'three' })
  t.equal(two.statusCode, 400)
  t.same(two.json().details, [{ field: '/name', reason: 'must be string' }, { field: '/count', reason: 'must be integer' }], 'a published Bee\'s body: both fields')
  t.equal(two.json().message, 'The body is invalid: /name must be string; /count must be integer.')

  const weather = await app.inject({ method: 'POST', url: '/api/bees/weather-sensor/execute', payload: { latitude: 'north', longitude: 'east' } })
  t.same(weather.json().details.map((issue: { field: string }) => issue.field), ['/latitude', '/longitude'], 'a built-in Bee\'s route schema: both fields')

  const many = await execute({ name: 'x', count: 1, tags: Array.from({ length: 50 }, () => 1) })
  t.equal(many.json().details.length, 20, 'at most 20 fields named')
  t.match(many.json().message, /; and 30 more\.$/, 'the rest counted')

  const large = await execute({ name: 7, count: 'three', tags: Array.from({ length: 2000 }, () => 'fine') })
  t.same(large.json().details, [{ field: '/name', reason: 'must be string' }], 'a body of over 1,000 values: its first error only')
})
