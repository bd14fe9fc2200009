import { test } from 'tap'
import { Type } from 'typebox'
import { carried, checkIdempotencyAcrossDoors, checkPaymentRequired, PAID_BEE, PAID_INPUT, type DoorCall } from '../../doors.js'
import { startFakeBee } from '../../fake-bee.js'
import { startFakeOpenMeteo } from '../../fake-open-meteo.js'
import { balanceOf, createWallet } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { allTools, clients, listening } from './clients.js'

async function setup (t: Parameters<typeof listening>[0], env: Record<string, string> = {}) {
  const meteo = await startFakeOpenMeteo()
  t.teardown(meteo.close)
  return { meteo, ...await listening(t, { env: { OPEN_METEO_URL: meteo.url, ...env } }) }
}

const modern = 'v2 client, 2026-07-28'
const text = 'The harvest was wonderful this year. Everyone in the village was delighted. The bees were busy all summer long.'

/** The error body of a tool execution error: structuredContent on 2026-07-28, the text alone on the 2025 revisions. */
function errorOf (result: Record<string, any>, name: string): Record<string, any> {
  const fromText = JSON.parse(result.content[0].text)
  if (name === modern) return result.structuredContent
  return fromText
}

/** The paid call over one MCP client, connected for it with the headers it carries. */
function overMcp (url: URL, name: string): DoorCall {
  return async (call) => {
    const { headers, meta } = carried(call)
    const { client } = await clients[name]!(url, headers)
    try {
      // Listing first makes the 1.x client check structuredContent against each tool's outputSchema.
      await allTools(client)
      const result = await client.callTool({ name: PAID_BEE, arguments: PAID_INPUT, _meta: meta })
      if (result.isError === true) return { replayed: false, charged: false, body: errorOf(result, name) }
      return {
        replayed: result._meta['ai.apiary/replayed'],
        charged: 'ai.apiary/charge' in result._meta,
        body: { result: result.structuredContent, timestamp: result._meta['ai.apiary/timestamp'] }
      }
    } finally {
      await client.close()
    }
  }
}

test('each built-in Bee answers through each client with its Honey, as HTTP gives it', async (t) => {
  const { app, url } = await setup(t)
  const wallet = await createWallet(app, 10)
  const http = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text, maxLength: 12 } })

  for (const [name, connect] of Object.entries(clients)) {
    const { client } = await connect(url, { 'X-Registry-Wallet-Token': wallet.token })
    const summary = await client.callTool({ name: 'text-summarizer', arguments: { text, maxLength: 12 } })
    t.notOk(summary.isError, name)
    t.same(summary.structuredContent, http.json().result, `${name}: the same result as over HTTP`)
    t.same(JSON.parse(summary.content[0].text), summary.structuredContent, `${name}: and its text form`)
    t.match(summary._meta, {
      'ai.apiary/beeId': 'text-summarizer',
      'ai.apiary/confidence': http.json().confidence,
      'ai.apiary/freshness': 0,
      'ai.apiary/replayed': false,
      'ai.apiary/timestamp': /^\d{4}-\d\d-\d\dT/
    })
    t.notOk('ai.apiary/charge' in summary._meta, `${name}: a free call charges nothing`)

    const sentiment = await client.callTool({ name: 'sentiment-analyzer', arguments: { text: 'I love this, it is wonderful!' } })
    t.equal(sentiment.structuredContent.sentiment, 'positive', name)
    t.same(sentiment._meta['ai.apiary/charge'].amount, 0.001, `${name}: what the call cost`)

    const weather = await client.callTool({ name: 'weather-sensor', arguments: { latitude: 48.85, longitude: 2.35 } })
    t.match(weather.structuredContent, { temperature: 13.4, condition: 'partly cloudy', humidity: 71 }, name)
    t.ok(weather._meta['ai.apiary/freshness'] >= 120, `${name}: freshness is the observation's age`)
    await client.close()
  }
  // Each client made one sentiment and one weather call.
  const calls = Object.keys(clients).length
  t.equal(await balanceOf(app, wallet.id), Math.round((10 - calls * 0.003) * 1e6) / 1e6)
})

test('a paid call without a wallet, with an unknown or unfunded one, is a tool error with the 402 body, and charges nothing', async (t) => {
  const { app, url } = await setup(t, { WALLET_DOCS_URL: 'https://docs.example.com/wallets' })
  for (const name of Object.keys(clients)) {
    const { client } = await clients[name]!(url)
    const missing = await client.callTool({ name: PAID_BEE, arguments: PAID_INPUT })
    t.equal(missing.isError, true, name)
    t.match(errorOf(missing, name), {
      x402Version: 2,
      resource: { url: `mcp://tool/${PAID_BEE}`, mimeType: 'application/json' },
      accepts: []
    }, `${name}: recognisable by an x402 client`)
    t.equal('structuredContent' in missing, name === modern, `${name}: structuredContent only where every client reads it`)
    await client.close()
    await checkPaymentRequired(t, app, name, overMcp(url, name))
  }
})

test('a funded call costs the price exactly once; the header wins over _meta', async (t) => {
  const { app, url } = await setup(t)
  const payer = await createWallet(app, 1)
  const other = await createWallet(app, 1)
  const { client } = await clients['v1 client, 2025-06-18']!(url, { 'X-Registry-Wallet-Token': payer.token })
  t.teardown(() => client.close())
  const result = await client.callTool({ name: 'weather-sensor', arguments: { latitude: 1, longitude: 2 }, _meta: { 'ai.apiary/walletToken': other.token } })
  t.notOk(result.isError)
  t.same(result._meta['ai.apiary/charge'], { amount: 0.002, balance: 0.998, currency: 'USD' })
  const own = await app.inject({ method: 'GET', url: '/api/wallet', headers: { 'x-registry-wallet-token': payer.token } })
  t.equal(own.json().balance, 0.998, 'GET /api/wallet shows the price taken once')
  t.equal(await balanceOf(app, other.id), 1, 'the _meta wallet was not charged')
})

test('bad arguments are a tool error the model can correct, and charge nothing', async (t) => {
  const { app, url } = await setup(t)
  const wallet = await createWallet(app, 1)
  for (const [name, connect] of Object.entries(clients)) {
    const { client } = await connect(url, { 'X-Registry-Wallet-Token': wallet.token })
    const result = await client.callTool({ name: 'weather-sensor', arguments: { latitude: 95, longitude: 2 } })
    t.equal(result.isError, true, name)
    t.match(errorOf(result, name), { code: 'VALIDATION_FAILED', details: [{ field: '/latitude' }] }, name)
    await t.rejects(client.callTool({ name: 'no-such-bee', arguments: {} }), { code: -32602, data: { code: 'BEE_NOT_FOUND' } }, `${name}: unknown tool`)
    await client.close()
  }
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('an idempotent retry is charged once whether it comes over HTTP or MCP', async (t) => {
  const { app, url } = await setup(t)
  await checkIdempotencyAcrossDoors(t, app, 'MCP', overMcp(url, modern))
})

test('a Bee that fails is a tool error for a publisher\'s Bee and an internal error for a built-in one, charged to no one', async (t) => {
  const meteo = await startFakeOpenMeteo()
  t.teardown(meteo.close)
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const { app, url } = await listening(t, { env: { OPEN_METEO_URL: meteo.url, EGRESS_ALLOWLIST: '127.0.0.1' } })
  const wallet = await createWallet(app, 1)
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('flaky', fake.url, { pricing: { type: 'pay-per-use', costPerCall: 0.5 } }))
  fake.mode = 'error'
  // A paid built-in whose handler breaks its own output schema.
  app.registry.register({
    ...app.registry.builtin('sentiment-analyzer')!.definition,
    id: 'broken',
    outputSchema: Type.Object({ n: Type.Number() }),
    execute: async () => ({ result: { n: 'not a number' } as never, confidence: 1, freshness: 0 })
  })
  const { client } = await clients[modern]!(url, { 'X-Registry-Wallet-Token': wallet.token })
  t.teardown(() => client.close())
  const upstream = await client.callTool({ name: 'flaky', arguments: { text: 'hey' } })
  t.equal(upstream.isError, true)
  t.equal(upstream.structuredContent.code, 'BEE_UPSTREAM_ERROR')
  await t.rejects(client.callTool({ name: 'broken', arguments: { text: 'Fine.' } }), { code: -32603, data: { code: 'BEE_OUTPUT_INVALID' } })
  t.equal(await balanceOf(app, wallet.id), 1)
})
