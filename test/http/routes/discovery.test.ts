import { test } from 'tap'
import { build } from '../../helper.js'
import { beeBody, publish, publishingSetup } from '../../publishing-helper.js'

const builtIns = ['sentiment-analyzer', 'text-summarizer', 'weather-sensor']

test('GET /api/bees lists the three built-in Bees with every field of the spec', async (t) => {
  const app = await build(t)
  const response = await app.inject('/api/bees')
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /application\/json/)
  const { bees } = response.json<{ bees: Array<Record<string, any>> }>()
  t.same(bees.map((bee) => bee.id).sort(), builtIns)
  for (const bee of bees) {
    t.match(bee, {
      id: String,
      name: String,
      description: String,
      category: String,
      endpoint: `/api/bees/${bee.id}/execute`,
      inputSchema: { type: 'object', properties: Object },
      outputSchema: { type: 'object', properties: Object },
      pricing: { type: String, costPerCall: Number, currency: 'USD' },
      status: 'active',
      colony: 'core',
      ownerId: null,
      type: 'builtin',
      config: { primaryServices: Array, executionMode: 'sync', executionProvider: String }
    }, bee.id)
    t.ok(!Number.isNaN(Date.parse(bee.lastUpdated)), 'lastUpdated is a date-time')
  }
})

test('the built-in Bees carry the categories, pricing and schemas of spec 2.4', async (t) => {
  const app = await build(t)
  const bees = Object.fromEntries(
    (await app.inject('/api/bees')).json<{ bees: Array<Record<string, any>> }>().bees.map((bee) => [bee.id, bee])
  )
  t.match(bees['sentiment-analyzer'], {
    category: 'utility',
    pricing: { type: 'pay-per-use', costPerCall: 0.001 },
    inputSchema: { required: ['text'], properties: { text: { type: 'string' } } },
    outputSchema: {
      required: ['sentiment', 'confidence'],
      properties: { sentiment: { enum: ['positive', 'negative', 'neutral'] }, confidence: { minimum: 0, maximum: 1 } }
    }
  })
  t.match(bees['text-summarizer'], {
    category: 'reasoning',
    pricing: { type: 'free', costPerCall: 0 },
    inputSchema: { required: ['text'], properties: { text: { type: 'string' }, maxLength: { type: 'integer', default: 150 } } },
    outputSchema: { required: ['summary', 'keyPoints'], properties: { keyPoints: { type: 'array' } } }
  })
  t.match(bees['weather-sensor'], {
    category: 'data',
    pricing: { type: 'pay-per-use', costPerCall: 0.002 },
    inputSchema: { required: ['latitude', 'longitude'] },
    outputSchema: { required: ['temperature', 'condition'], properties: { humidity: { type: 'number' } } }
  })
})

test('prices and currency come from the configuration', async (t) => {
  const app = await build(t, { env: { PRICE_SENTIMENT_ANALYZER: '0.25', PRICE_CURRENCY: 'EUR' } })
  const bee = (await app.inject('/api/bees/sentiment-analyzer')).json()
  t.same(bee.pricing, { type: 'pay-per-use', costPerCall: 0.25, currency: 'EUR' })
})

test('GET /api/bees/{id} returns the full record', async (t) => {
  const app = await build(t)
  const list = (await app.inject('/api/bees')).json<{ bees: Array<{ id: string }> }>().bees
  for (const id of builtIns) {
    const response = await app.inject(`/api/bees/${id}`)
    t.equal(response.statusCode, 200)
    const { openapi, ...record } = response.json()
    t.same(record, list.find((bee) => bee.id === id), `${id} detail equals its discovery record`)
    t.equal(openapi, `/api/bees/${id}/openapi.json`, 'plus the link to its own OpenAPI document')
  }
})

test('an unknown Bee id is a 404 with a JSON error body', async (t) => {
  const app = await build(t)
  const response = await app.inject('/api/bees/no-such-bee')
  t.equal(response.statusCode, 404)
  t.same(response.json(), {
    error: 'Not Found',
    code: 'BEE_NOT_FOUND',
    message: 'No Bee has the id "no-such-bee". GET /api/bees lists the Bees you can call.'
  })
})

test('an unknown route is a 404 in the same error shape', async (t) => {
  const app = await build(t)
  const response = await app.inject('/api/nothing-here')
  t.equal(response.statusCode, 404)
  t.match(response.json(), { error: 'Not Found', code: 'ROUTE_NOT_FOUND', message: String })
})

test('every response carries a request id, and an incoming X-Request-Id is kept', async (t) => {
  const app = await build(t)
  const generated = await app.inject('/api/bees')
  t.match(generated.headers['x-request-id'], /^[0-9a-f-]{36}$/)
  const forwarded = await app.inject({ url: '/api/bees', headers: { 'x-request-id': 'gateway-42' } })
  t.equal(forwarded.headers['x-request-id'], 'gateway-42')
})

test('/health answers while alive and /ready once the ledger answers', async (t) => {
  const app = await build(t)
  t.same((await app.inject('/health')).json(), { status: 'ok' })
  t.same((await app.inject('/ready')).json(), { status: 'ready' })
  await app.ledger.close()
  const notReady = await app.inject('/ready')
  t.equal(notReady.statusCode, 503)
  t.equal(notReady.json().code, 'NOT_READY')
})

test('a kept discovery answer is sent as its UTF-8 bytes: Content-Length counts bytes, and a repeat is byte for byte the same', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t)
  await publish(app, publisher.headers, beeBody('accents', fake.url, { description: 'Résumé of the text ✓, in naïve capitals.' }))
  for (const url of ['/api/bees?colony=loud', '/api/bees/accents']) {
    const [first, again] = [await app.inject(url), await app.inject(url)]
    t.equal(first.statusCode, 200, url)
    t.equal(first.headers['content-type'], 'application/json; charset=utf-8', url)
    t.equal(Number(first.headers['content-length']), first.rawPayload.length, `${url}: the length in bytes`)
    t.match(first.body, 'Résumé of the text ✓', url)
    t.same(again.rawPayload, first.rawPayload, `${url}: the kept bytes`)
    t.equal(again.headers.etag, first.headers.etag, url)
  }
})
