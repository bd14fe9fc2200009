import SwaggerParser from '@apidevtools/swagger-parser'
import { test } from 'tap'
import { backends } from '../../databases.js'
import { startFakeBee } from '../../fake-bee.js'
import { build, createWallet } from '../../helper.js'
import { beeBody, createPublisher, publish, shoutInput } from '../../publishing-helper.js'

const withMode = (required: string[]) => ({
  ...shoutInput,
  properties: { ...shoutInput.properties, mode: { type: 'string', enum: ['loud', 'louder'], description: 'How loud.' } },
  required
})

for (const backend of backends) {
  test(`${backend.name}: a breaking change needs a new major; callers pinned to the old one keep it`, { skip: backend.skip }, async (t) => {
    const db = await backend.open()
    t.teardown(db.drop)
    const fake = await startFakeBee()
    t.teardown(fake.close)
    const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', DATABASE_URL: db.url, REMOTE_BEE_TIMEOUT_MS: '2000' } })
    const publisher = await createPublisher(app)
    const patch = (payload: object) => app.inject({ method: 'PATCH', url: '/api/bees/shouter', headers: publisher.headers, payload })
    const call = (payload: object, version?: string) => app.inject({
      method: 'POST', url: '/api/bees/shouter/execute', payload, headers: version === undefined ? {} : { 'bee-version': version }
    })

    t.match(await publish(app, publisher.headers, beeBody('shouter', fake.url)), { version: '1.0.0' }, 'a Bee published without a version is 1.0.0')
    t.equal((await app.inject('/api/bees/shouter')).json().version, '1.0.0', 'its detail shows it')
    t.equal((await app.inject('/api/bees')).json().bees.find((bee: { id: string }) => bee.id === 'shouter').version, '1.0.0', 'and discovery')

    const refused = await patch({ inputSchema: withMode(['text', 'mode']) })
    t.equal(refused.statusCode, 400, 'a newly required input without a new major is refused')
    t.match(refused.json(), {
      code: 'BREAKING_CHANGE',
      message: /breaks callers of 1\.0\.0: \/inputSchema\/required: "mode" is newly required.*version "2\.0\.0"/,
      details: [{ field: '/inputSchema/required', reason: '"mode" is newly required' }]
    })
    t.match((await patch({ inputSchema: withMode(['text', 'mode']), version: '1.1.0' })).json(), { code: 'BREAKING_CHANGE' }, 'a minor is not enough')
    t.match((await patch({ version: '0.9.0', inputSchema: withMode(['text']) })).json(), { code: 'INVALID_VERSION' }, 'a version goes up only')
    t.equal((await app.inject('/api/bees/shouter')).json().version, '1.0.0', 'nothing changed')

    const v2 = await patch({ inputSchema: withMode(['text', 'mode']), version: '2.0.0' })
    t.equal(v2.statusCode, 200, v2.body)
    t.equal(v2.json().version, '2.0.0', 'with a new major it is version 2')

    const unpinned = await call({ text: 'hi' })
    t.equal(unpinned.statusCode, 400, 'unpinned calls get the latest, which needs mode')
    t.match(unpinned.json(), { code: 'VALIDATION_FAILED' })
    const latest = await call({ text: 'hi', mode: 'loud' })
    t.equal(latest.statusCode, 200)
    t.equal(latest.headers['bee-version'], '2.0.0', 'the answer names the version that answered')
    t.equal(fake.calls.at(-1)?.headers['bee-version'], '2.0.0', 'the upstream is told the version it is called as')

    const pinned = await call({ text: 'hi' }, '1')
    t.equal(pinned.statusCode, 200, 'a caller pinned to 1 is validated against version 1, which has no mode')
    t.match(pinned.json(), { beeId: 'shouter', result: { shout: 'HI' } })
    t.equal(pinned.headers['bee-version'], '1.0.0')
    t.equal(fake.calls.at(-1)?.headers['bee-version'], '1.0.0', 'and the upstream sees version 1')
    t.match(pinned.headers.deprecation, /^@\d+$/, 'an older major is deprecated')
    const sunset = Date.parse(String(pinned.headers.sunset))
    t.ok(Math.abs(sunset - (Date.now() + 90 * 86_400_000)) < 86_400_000, 'with its Sunset VERSION_SUNSET_DAYS (90) after version 2 came')
    t.notOk(latest.headers.deprecation, 'the latest is not')
    t.match((await call({ text: 5 }, '1.0.0')).json(), { code: 'VALIDATION_FAILED', details: [{ field: '/text' }] }, 'version 1\'s schema still applies')
    t.equal((await call({ text: 'hi', mode: 'loud' }, '2')).statusCode, 200)

    if (backend.name === 'postgres') {
      // Another instance on the same database serves the pinned version as well (SQLite: one process owns the file).
      const other = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', DATABASE_URL: db.url, REMOTE_BEE_TIMEOUT_MS: '2000' } })
      const there = await other.inject({ method: 'POST', url: '/api/bees/shouter/execute', payload: { text: 'there' }, headers: { 'bee-version': '1' } })
      t.equal(there.headers['bee-version'], '1.0.0', 'another instance serves version 1 to a caller pinned to it')
      t.equal(fake.calls.at(-1)?.headers['bee-version'], '1.0.0')
    }

    const wallet = await createWallet(app, 1)
    const keyed = (version?: string) => app.inject({
      method: 'POST',
      url: '/api/bees/shouter/execute',
      payload: { text: 'hi' },
      headers: { 'idempotency-key': 'k-1', 'x-registry-wallet-token': wallet.token, ...(version === undefined ? {} : { 'bee-version': version }) }
    })
    t.equal((await keyed('1')).statusCode, 200)
    t.equal((await keyed('1')).headers['idempotent-replayed'], 'true', 'a pinned call retried with its key replays')
    t.match((await keyed('1.0')).json(), { code: 'IDEMPOTENCY_KEY_REUSED' }, 'the key with another pin is another request')

    const unknown = await call({ text: 'hi' }, '3')
    t.equal(unknown.statusCode, 404)
    t.match(unknown.json(), { code: 'BEE_VERSION_NOT_FOUND', message: /no version matching Bee-Version 3; its latest is 2\.0\.0/ })
    const malformed = await call({ text: 'hi' }, 'latest')
    t.equal(malformed.statusCode, 400)
    t.match(malformed.json(), { code: 'INVALID_VERSION' })

    const compatible = await patch({ inputSchema: { ...withMode(['text', 'mode']), properties: { ...withMode([]).properties, note: { type: 'string' } } } })
    t.equal(compatible.json().version, '2.1.0', 'a compatible change of schema makes the next minor by itself')
    t.equal((await patch({ status: 'active', name: 'Shouter, renamed' })).json().version, '2.1.0', 'a change of neither schema nor endpoint keeps the version')
    t.match((await app.inject({ url: '/api/bees/shouter.md', headers: { host: 'localhost:3000' } })).body, '- Version: 2.1.0', 'the Markdown view names it')
    t.equal((await call({ text: 'hi', mode: 'loud' }, '2.0')).headers['bee-version'], '2.0.0', 'a minor pin takes that minor')
    t.equal((await call({ text: 'hi', mode: 'loud' }, '2')).headers['bee-version'], '2.1.0', 'a major pin takes its highest')

    const listed = await app.inject('/api/bees/shouter/versions')
    t.equal(listed.statusCode, 200)
    const { versions } = listed.json()
    t.same(versions.map((v: { version: string }) => v.version), ['2.1.0', '2.0.0', '1.0.0'], 'every version, the latest first')
    t.same(versions[2].inputSchema, (await app.inject('/api/bees/shouter/openapi.json?version=1')).json()
      .paths['/api/bees/shouter/execute'].post.requestBody.content['application/json'].schema, 'each with its own OpenAPI document')
    t.equal(versions[2].openapi, '/api/bees/shouter/openapi.json?version=1.0.0')
    t.match(versions, [{ status: 'active', sunsetAt: null }, { status: 'active', sunsetAt: null }, { status: 'deprecated', sunsetAt: /^\d{4}-/ }])
    const document = (await app.inject(versions[1].openapi)).json()
    await t.resolves(SwaggerParser.validate(structuredClone(document)), 'a valid OpenAPI document')
    t.match(document.paths['/api/bees/shouter/execute'].post.parameters.find((p: { name: string }) => p.name === 'bee-version'), { in: 'header', example: '2.0.0' },
      'whose Bee-Version example calls that version')
    t.equal((await app.inject('/api/bees/shouter/openapi.json?version=7')).statusCode, 404)

    t.equal((await app.inject({ method: 'DELETE', url: '/api/bees/shouter', headers: publisher.headers })).statusCode, 204)
    await publish(app, publisher.headers, beeBody('shouter', fake.url, { version: '0.1.0' }))
    t.same((await app.inject('/api/bees/shouter/versions')).json().versions.map((v: { version: string }) => v.version), ['0.1.0'],
      'a Bee published again under the id starts anew, at the version it is given')
  })
}

test('a publish names its first version; built-in Bees have theirs', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  const bad = await app.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('odd', fake.url, { version: '1.0' }) })
  t.equal(bad.statusCode, 400)
  t.match(bad.json(), { code: 'INVALID_VERSION' })
  t.equal((await app.inject('/api/bees/text-summarizer')).json().version, '1.0.0')
  const text = 'Bees make honey. Honey is sweet. Bees live in hives.'
  const pinned = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: { 'bee-version': '1' }, payload: { text } })
  t.equal(pinned.statusCode, 200)
  t.equal(pinned.headers['bee-version'], '1.0.0')
  const none = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', headers: { 'bee-version': '2' }, payload: { text } })
  t.equal(none.statusCode, 404)
  t.match(none.json(), { code: 'BEE_VERSION_NOT_FOUND' })
  t.same((await app.inject('/api/bees/text-summarizer/versions')).json(), {
    id: 'text-summarizer',
    versions: [{ version: '1.0.0', status: 'active', sunsetAt: null, inputSchema: (await app.inject('/api/bees/text-summarizer')).json().inputSchema, outputSchema: (await app.inject('/api/bees/text-summarizer')).json().outputSchema, openapi: '/api/bees/text-summarizer/openapi.json' }]
  })
})

test('MCP and A2A callers pin in _meta and metadata', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', REMOTE_BEE_TIMEOUT_MS: '2000' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('shouter', fake.url))
  const v2 = await app.inject({ method: 'PATCH', url: '/api/bees/shouter', headers: publisher.headers, payload: { inputSchema: withMode(['text', 'mode']), version: '2.0.0' } })
  t.equal(v2.statusCode, 200)

  const mcp = async (meta: Record<string, unknown>) => (await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'shouter', arguments: { text: 'hi' }, _meta: meta } }
  })).json().result
  t.equal((await mcp({})).isError, true, 'unpinned, the latest needs mode')
  t.match(await mcp({ 'ai.apiary/beeVersion': '1' }), { structuredContent: { shout: 'HI' } }, 'pinned to 1 in _meta, version 1 answers')
  t.equal(fake.calls.at(-1)?.headers['bee-version'], '1.0.0')
  t.match(await mcp({ 'ai.apiary/beeVersion': 1 }), { structuredContent: { shout: 'HI' } }, 'a number pins too')
  t.match(JSON.stringify(await mcp({ 'ai.apiary/beeVersion': '9' })), /BEE_VERSION_NOT_FOUND/)
  t.match(JSON.stringify(await mcp({ 'ai.apiary/beeVersion': [1] })), /INVALID_VERSION/, 'anything else is not a pin')

  const a2a = async (metadata: Record<string, unknown>) => (await app.inject({
    method: 'POST',
    url: '/a2a',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    payload: {
      jsonrpc: '2.0',
      id: 'r1',
      method: 'SendMessage',
      params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ data: { beeId: 'shouter', input: { text: 'hi' } }, mediaType: 'application/json' }] }, metadata }
    }
  })).json().result.task
  t.equal((await a2a({})).status.state, 'TASK_STATE_REJECTED', 'unpinned, the latest refuses the input')
  t.match(await a2a({ 'ai.apiary/beeVersion': '1.0' }), { status: { state: 'TASK_STATE_COMPLETED' } }, 'pinned in metadata, version 1 answers')
  t.equal(fake.calls.at(-1)?.headers['bee-version'], '1.0.0')
})
