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
    t.ok(ms < 1000, `${what}: answered in ${Math.round(ms)} ms`)
  }
})
