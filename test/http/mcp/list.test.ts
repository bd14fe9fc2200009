import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { test } from 'tap'
import { startFakeBee } from '../../fake-bee.js'
import { adminHeaders } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { allTools, clients, listening } from './clients.js'

const env = { EGRESS_ALLOWLIST: '127.0.0.1' }

/** The protocol version each client ends up speaking with Apiary. */
const negotiated: Record<string, string> = {
  'v2 client, 2025 handshake': '2025-11-25',
  'v2 client, 2026-07-28': '2026-07-28',
  'v1 client, 2025-11-25': '2025-11-25',
  'v1 client, 2025-06-18': '2025-06-18'
}

test('every client negotiates its version and walks every active Bee across pages, each once', async (t) => {
  const { app, url } = await listening(t, { env })
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const publisher = await createPublisher(app)
  // 3 built-in and 50 published Bees: more than one page of 50.
  for (let i = 0; i < 50; i++) await publish(app, publisher.headers, beeBody(`shout-${String(i).padStart(2, '0')}`, fake.url))
  const expected = ['find_bees', ...[...app.registry.builtins().map((bee) => bee.record.id), ...Array.from({ length: 50 }, (_, i) => `shout-${String(i).padStart(2, '0')}`)].sort()]
  t.equal(expected.length, 54)

  for (const [name, connect] of Object.entries(clients)) {
    const { client, version, sent } = await connect(url)
    t.equal(version, negotiated[name], `${name} speaks ${negotiated[name]}`)
    const tools = await allTools(client)
    t.equal(sent.filter((method) => method === 'tools/list').length, 2, `${name}: two pages`)
    t.same(tools.map((tool) => tool.name), expected, `${name}: find_bees, then every Bee in id order`)
    await client.close()
  }
})

test('a tool is its Bee: title, description, schemas in the tool dialect, annotations and pricing', async (t) => {
  const { app, url } = await listening(t, { env })
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('noted', fake.url, {
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 }, note: { type: ['string', 'null'], examples: ['hi'] } },
      required: ['text']
    },
    pricing: { type: 'pay-per-use', costPerCall: 0.25 }
  }))
  const { client } = await clients['v2 client, 2026-07-28']!(url)
  t.teardown(() => client.close())
  const tools = await allTools(client)
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))

  const sentiment = byName['sentiment-analyzer']!
  const record = app.registry.builtin('sentiment-analyzer')!.record
  t.equal(sentiment.title, record.name)
  t.equal(sentiment.description, record.description)
  t.same(sentiment._meta, {
    'ai.apiary/pricing': { type: 'pay-per-use', costPerCall: 0.001, currency: 'USD' },
    'ai.apiary/status': 'active',
    'ai.apiary/category': record.category,
    'ai.apiary/colony': 'core',
    'ai.apiary/beeVersion': '1.0.0'
  })
  t.same(sentiment.annotations, { title: record.name, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    'a paid Bee spends money: neither read-only nor idempotent')
  t.same(byName['text-summarizer']!.annotations, {
    title: app.registry.builtin('text-summarizer')!.record.name, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false
  }, 'a free built-in Bee changes nothing')
  t.equal(byName['sentiment-analyzer']!.outputSchema.properties.sentiment.enum.length, 3)

  const noted = byName.noted!
  t.equal(noted.annotations.openWorldHint, true, 'a published Bee runs on its publisher\'s server')
  t.same(noted._meta['ai.apiary/pricing'], { type: 'pay-per-use', costPerCall: 0.25, currency: 'USD' })
  t.same(noted.inputSchema.properties.note, { type: ['string', 'null'], examples: ['hi'] }, 'nullable as 2020-12 says it')
  t.notMatch(JSON.stringify(tools), /"nullable"|"example"/)

  t.same(byName.find_bees!.annotations, { title: 'Find Bees', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
})

test('the list follows the registry: a Bee shows up once published, and is gone once deleted or inactive', async (t) => {
  const { app, url } = await listening(t, { env })
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const publisher = await createPublisher(app)
  for (const name of ['v1 client, 2025-11-25', 'v2 client, 2026-07-28']) {
    const { client } = await clients[name]!(url)
    const names = async () => (await allTools(client)).map((tool) => tool.name)
    t.notOk((await names()).includes('fresh'), name)
    await publish(app, publisher.headers, beeBody('fresh', fake.url))
    t.ok((await names()).includes('fresh'), `${name}: listed right after publishing`)
    const called = await client.callTool({ name: 'fresh', arguments: { text: 'hey' } })
    t.same(called.structuredContent, { shout: 'HEY', length: 3 }, `${name}: and callable`)

    t.equal((await app.inject({ method: 'DELETE', url: '/api/bees/fresh', headers: publisher.headers })).statusCode, 204)
    t.notOk((await names()).includes('fresh'), `${name}: gone once deleted`)
    await t.rejects(client.callTool({ name: 'fresh', arguments: { text: 'hey' } }), { code: -32602, data: { code: 'BEE_NOT_FOUND' } })
    await client.close()
  }

  const { client } = await clients['v2 client, 2025 handshake']!(url)
  t.teardown(() => client.close())
  await publish(app, publisher.headers, beeBody('resting', fake.url))
  const paused = await app.inject({ method: 'PATCH', url: '/api/bees/resting', headers: adminHeaders, payload: { status: 'inactive', statusMessage: 'Resting.' } })
  t.equal(paused.statusCode, 200, paused.body)
  t.notOk((await allTools(client)).some((tool) => tool.name === 'resting'), 'an inactive Bee is not listed')
  await t.rejects(client.callTool({ name: 'resting', arguments: { text: 'hey' } }), { code: -32602, data: { code: 'BEE_INACTIVE' } })
})

test('find_bees ranks by how well the query matches, and filters by category and price', async (t) => {
  const { app, url } = await listening(t, { env })
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('forecast-echo', fake.url, { name: 'Echo', description: 'Echoes text; no weather here.' }))
  await publish(app, publisher.headers, beeBody('cheap-shout', fake.url, { pricing: { type: 'pay-per-use', costPerCall: 0.0005 } }))
  const { client } = await clients['v2 client, 2025 handshake']!(url)
  t.teardown(() => client.close())
  const find = async (args: Record<string, unknown>) => (await client.callTool({ name: 'find_bees', arguments: args })).structuredContent.bees as Array<Record<string, any>>
  const ids = async (args: Record<string, unknown>) => (await find(args)).map((bee) => bee.id)

  t.same(await ids({ query: 'weather' }), ['weather-sensor', 'forecast-echo'], 'id and name before a mention in the description')
  t.same(await ids({ query: 'sentiment analysis' }), ['sentiment-analyzer'])
  t.same(await ids({ query: 'zebra' }), [])
  t.same(await ids({ freeOnly: true }), ['forecast-echo', 'text-summarizer'], 'without a query: in id order')
  t.same(await ids({ maxPrice: 0.001 }), ['cheap-shout', 'forecast-echo', 'sentiment-analyzer', 'text-summarizer'])
  t.same(await ids({ category: 'utility', query: 'shout' }), ['cheap-shout'])
  t.same(await ids({ limit: 2 }), ['cheap-shout', 'forecast-echo'])

  const [weather, echo] = await find({ query: 'Weather' })
  t.ok(weather!.relevance > echo!.relevance, 'words of the id and the name weigh more than a mention in the description')
  t.ok(echo!.relevance > 0)
  t.same(weather!.pricing, { type: 'pay-per-use', costPerCall: 0.002, currency: 'USD' })
  t.same(Object.keys(weather!.inputSchema.properties), ['latitude', 'longitude'], 'with the schemas to call it')

  const refused = await client.callTool({ name: 'find_bees', arguments: { limit: 0 } })
  t.equal(refused.isError, true)
  t.match(JSON.parse(refused.content[0].text), { code: 'VALIDATION_FAILED', details: [{ field: '/limit' }] })
})

test('find_bees shows each Bee\'s health, keeps those above minSuccessRate and ranks by reliability', async (t) => {
  const { app, url } = await listening(t, { env: { ...env, HEALTH_SYNC_MS: '60000' } })
  const [sure, shaky] = [await startFakeBee(), await startFakeBee()]
  t.teardown(sure.close)
  t.teardown(shaky.close)
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('sure-shout', sure.url))
  await publish(app, publisher.headers, beeBody('shaky-shout', shaky.url))
  const run = (id: string) => app.inject({ method: 'POST', url: `/api/bees/${id}/execute`, payload: { text: 'hey' } })
  await run('sure-shout')
  await run('shaky-shout')
  shaky.mode = 'error'
  await run('shaky-shout')
  await app.beeHealth.sync()
  const { client } = await clients['v2 client, 2025 handshake']!(url)
  t.teardown(() => client.close())
  const find = async (args: Record<string, unknown>) => (await client.callTool({ name: 'find_bees', arguments: args })).structuredContent.bees as Array<Record<string, any>>

  const [found] = await find({ query: 'shaky-shout', limit: 1 })
  t.match(found!.health, { windowMinutes: 60, calls: 2, successRate: 0.5, conformance: 1, p50Ms: Number, p95Ms: Number })
  t.same((await find({ query: 'sentiment-analyzer', limit: 1 }))[0]!.health,
    { windowMinutes: 60, calls: 0, successRate: null, p50Ms: null, p95Ms: null, conformance: null }, 'not run: no figures')
  t.same((await find({ query: 'shout', minSuccessRate: 0.9 })).map((bee) => bee.id), ['sure-shout'])
  t.same((await find({ query: 'shout', sort: 'reliability' })).map((bee) => bee.id), ['sure-shout', 'shaky-shout'])
  t.same((await find({ sort: 'reliability', limit: 3 })).map((bee) => bee.id), ['sure-shout', 'shaky-shout', 'sentiment-analyzer'],
    'Bees not run lately last, in id order')
  const refused = await client.callTool({ name: 'find_bees', arguments: { minSuccessRate: 2 } })
  t.equal(refused.isError, true)
  t.match(JSON.parse(refused.content[0].text), { code: 'VALIDATION_FAILED', details: [{ field: '/minSuccessRate' }] })
})

test('on 2026-07-28 a listening client hears that the tool list changed; 2025-era clients are promised nothing', async (t) => {
  const { app, url } = await listening(t, { env })
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const publisher = await createPublisher(app)
  const legacy = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
  })
  const { capabilities } = ((await legacy.json()) as { result: { capabilities: unknown } }).result
  t.same(capabilities, {
    tools: { listChanged: false },
    resources: { listChanged: false },
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }
  }, 'no list changes; tasks (2025-11-25) for tools/call')

  const client = new Client({ name: 'apiary-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(url))
  t.teardown(() => client.close())
  t.same(client.getServerCapabilities()?.tools, { listChanged: true })
  let changed = 0
  let heard = () => {}
  const announced = new Promise<void>((resolve) => { heard = resolve })
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changed++
    heard()
  })
  const subscription = await client.listen({ toolsListChanged: true })
  t.same(subscription.honoredFilter, { toolsListChanged: true })
  await new Promise((resolve) => setTimeout(resolve, 1200))
  t.equal(changed, 0, 'nothing changed, nothing heard')
  await publish(app, publisher.headers, beeBody('announced', fake.url))
  await announced
  t.ok(changed > 0, 'heard of the publish')
  await subscription.close()
})
