import SwaggerParser from '@apidevtools/swagger-parser'
import { test } from 'tap'
import { adminHeaders, balanceOf, build, createWallet } from '../../helper.js'
import { signatureIsValid } from '../../fake-bee.js'
import { beeBody, createPublisher, draft07Input, publish, publishingSetup, shoutInput, shoutOutput } from '../../publishing-helper.js'

// The timeout only has to end a Bee that never answers; 300 ms cut ordinary calls short on a loaded machine (CI, 4 test processes on 2 cores).
const setup = (t: Parameters<typeof build>[0], env: Record<string, string> = {}) => publishingSetup(t, { REMOTE_BEE_TIMEOUT_MS: '2000', ...env })

test('the operator issues publisher keys; nobody else can', async (t) => {
  const app = await build(t)
  const publisher = await createPublisher(app)
  t.match(publisher, { id: /^pub_/, key: /^apk_[A-Za-z0-9_-]{43}$/, email: 'acme@example.com' })
  const bad = await app.inject({ method: 'POST', url: '/api/publishers', payload: { email: 'x@example.com', name: 'X' } })
  t.equal(bad.statusCode, 401)
  const byPublisher = await app.inject({ method: 'POST', url: '/api/publishers', headers: publisher.headers, payload: { email: 'x@example.com', name: 'X' } })
  t.equal(byPublisher.statusCode, 401, 'a publisher key is not the admin token')
  const invalid = await app.inject({ method: 'POST', url: '/api/publishers', headers: adminHeaders, payload: { email: 'not-an-email', name: 'X' } })
  t.equal(invalid.statusCode, 400)
})

test('a published Bee is discoverable, described in OpenAPI, and executes through the proxy', async (t) => {
  const { app, fake, publisher } = await setup(t)
  const published = await publish(app, publisher.headers, beeBody('shouter', fake.url))
  t.match(published, {
    id: 'shouter',
    type: 'remote',
    ownerId: publisher.id,
    ownerEmail: 'acme@example.com',
    status: 'active',
    colony: 'loud',
    endpoint: '/api/bees/shouter/execute',
    upstreamEndpoint: fake.url,
    config: { executionMode: 'sync', executionProvider: new URL(fake.url).host, primaryServices: ['shouting'] },
    signingSecret: /^bsk_/
  })

  const listed = (await app.inject('/api/bees')).json().bees.find((bee: { id: string }) => bee.id === 'shouter')
  t.match(listed, { id: 'shouter', inputSchema: shoutInput, outputSchema: shoutOutput })
  t.notOk('signingSecret' in listed || 'upstreamEndpoint' in listed, 'private details stay private')

  const document = (await app.inject('/api/bees/shouter/openapi.json')).json()
  const operation = document.paths['/api/bees/shouter/execute']?.post
  t.ok(operation, 'the Bee\'s own OpenAPI document has its path')
  t.same(operation.requestBody.content['application/json'].schema, shoutInput)
  t.same(operation.responses['200'].content['application/json'].schema.allOf[1].properties.result, shoutOutput, 'Honey is the shared envelope and this result')
  await t.resolves(SwaggerParser.validate(structuredClone(document)), 'still valid OpenAPI 3.0.3')

  fake.replyHeaders = { 'x-bee-confidence': '0.7', age: '30' }
  const response = await app.inject({ method: 'POST', url: '/api/bees/shouter/execute', payload: { text: 'hello bees' } })
  t.equal(response.statusCode, 200)
  t.match(response.json(), { beeId: 'shouter', result: { shout: 'HELLO BEES', length: 10 }, confidence: 0.7, freshness: 30 })

  const call = fake.calls[0]
  t.ok(call !== undefined)
  t.same(JSON.parse(call?.body ?? ''), { text: 'hello bees' }, 'the validated input is forwarded')
  t.equal(call?.headers['x-apiary-bee-id'], 'shouter')
  t.equal(call?.headers['x-request-id'], response.headers['x-request-id'])
  t.ok(signatureIsValid(published.signingSecret, call?.headers ?? {}, call?.body ?? ''), 'the signature verifies with the secret')
  t.notOk(signatureIsValid('bsk_wrong', call?.headers ?? {}, call?.body ?? ''))

  fake.replyHeaders = { 'x-bee-confidence': '7', age: 'soon' }
  const defaults = (await app.inject({ method: 'POST', url: '/api/bees/shouter/execute', payload: { text: 'x' } })).json()
  t.equal(defaults.confidence, 1, 'out-of-range confidence falls back to 1')
  t.equal(defaults.freshness, 0, 'no usable Age means 0')

  const invalid = await app.inject({ method: 'POST', url: '/api/bees/shouter/execute', payload: { text: 5 } })
  t.equal(invalid.statusCode, 400)
  t.match(invalid.json(), { code: 'VALIDATION_FAILED', details: [{ field: '/text' }] })
  t.equal(fake.calls.length, 2, 'invalid input never reaches the Bee')
})

test('every failure of a paid published Bee maps to its status and refunds the wallet', async (t) => {
  const { app, fake, publisher } = await setup(t, { REMOTE_BEE_MAX_RESPONSE_BYTES: '65536' })
  await publish(app, publisher.headers, beeBody('paid-shouter', fake.url, { pricing: { type: 'pay-per-use', costPerCall: 0.01 } }))
  const wallet = await createWallet(app, 1)
  const call = () => app.inject({
    method: 'POST', url: '/api/bees/paid-shouter/execute', payload: { text: 'hi' }, headers: { 'x-registry-wallet-token': wallet.token }
  })
  const ok = await call()
  t.equal(ok.statusCode, 200)
  t.equal(ok.headers['x-registry-cost'], '0.01')
  const cases = [
    { mode: 'slow', status: 504, code: 'BEE_TIMEOUT' },
    { mode: 'error', status: 502, code: 'BEE_UPSTREAM_ERROR' },
    { mode: 'invalid-output', status: 502, code: 'BEE_OUTPUT_INVALID' },
    { mode: 'not-json', status: 502, code: 'BEE_OUTPUT_INVALID' },
    { mode: 'oversize', status: 502, code: 'BEE_RESPONSE_TOO_LARGE' },
    { mode: 'oversize-chunked', status: 502, code: 'BEE_RESPONSE_TOO_LARGE' }
  ] as const
  for (const { mode, status, code } of cases) {
    fake.mode = mode
    const response = await call()
    t.equal(response.statusCode, status, mode)
    t.equal(response.json().code, code, mode)
    t.equal(await balanceOf(app, wallet.id), 0.99, `${mode}: refunded`)
  }
  await fake.close()
  const refused = await call()
  t.equal(refused.statusCode, 502, 'a refused connection')
  t.equal(refused.json().code, 'BEE_UPSTREAM_ERROR')
  t.equal(await balanceOf(app, wallet.id), 0.99)
  const audit = await app.ledger.journal.audit(wallet.id)
  t.equal(audit?.balanceMicros, audit?.journalMicros, 'the journal agrees')
})

test('publishers manage only their own Bees; built-ins are the operator\'s', async (t) => {
  const { app, fake, publisher } = await setup(t)
  const rival = await createPublisher(app, 'Rival')
  await publish(app, publisher.headers, beeBody('mine', fake.url))
  const asRival = [
    await app.inject({ method: 'PATCH', url: '/api/bees/mine', headers: rival.headers, payload: { name: 'Stolen' } }),
    await app.inject({ method: 'DELETE', url: '/api/bees/mine', headers: rival.headers })
  ]
  for (const response of asRival) {
    t.equal(response.statusCode, 404, 'someone else\'s Bee looks absent')
    t.equal(response.json().code, 'BEE_NOT_FOUND')
  }
  t.equal((await app.inject({ method: 'PATCH', url: '/api/bees/mine', payload: { name: 'x' } })).statusCode, 401)
  t.equal((await app.inject({ method: 'PATCH', url: '/api/bees/mine', headers: { authorization: 'Bearer apk_unknown' }, payload: {} })).statusCode, 401)

  const builtIn = await app.inject({ method: 'PATCH', url: '/api/bees/text-summarizer', headers: publisher.headers, payload: { status: 'inactive' } })
  t.equal(builtIn.statusCode, 403)
  t.equal(builtIn.json().code, 'BEE_RESERVED')
  t.equal((await app.inject({ method: 'DELETE', url: '/api/bees/text-summarizer', headers: adminHeaders })).json().code, 'BEE_RESERVED')
  t.equal((await app.inject({ method: 'PATCH', url: '/api/bees/text-summarizer', headers: adminHeaders, payload: { name: 'x' } })).statusCode, 403)

  const paused = await app.inject({ method: 'PATCH', url: '/api/bees/text-summarizer', headers: adminHeaders, payload: { status: 'inactive', statusMessage: 'Maintenance.' } })
  t.equal(paused.statusCode, 200)
  t.notOk((await app.inject('/api/bees')).json().bees.some((bee: { id: string }) => bee.id === 'text-summarizer'), 'inactive Bees leave discovery')
  t.match((await app.inject('/api/bees/text-summarizer')).json(), { status: 'inactive', statusMessage: 'Maintenance.' }, 'detail still answers')
  const refused = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: 'Hi.' } })
  t.equal(refused.statusCode, 409)
  t.match(refused.json(), { code: 'BEE_INACTIVE', message: /Maintenance/ })
  t.notOk((await app.inject('/openapi/openapi.json')).json().paths['/api/bees/text-summarizer/execute'], 'and leave the OpenAPI document')
  await app.inject({ method: 'PATCH', url: '/api/bees/text-summarizer', headers: adminHeaders, payload: { status: 'active' } })
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: 'Hi.' } })).statusCode, 200)

  const adminEdit = await app.inject({ method: 'PATCH', url: '/api/bees/mine', headers: adminHeaders, payload: { name: 'Renamed by operator' } })
  t.equal(adminEdit.statusCode, 200, 'the operator manages every Bee')
  const byAdmin = await app.inject({ method: 'POST', url: '/api/bees', headers: adminHeaders, payload: beeBody('admins', fake.url) })
  t.equal(byAdmin.json().code, 'PUBLISHER_REQUIRED')
})

test('the lifecycle: inactive, deprecated with a sunset, revived only by the operator, removed', async (t) => {
  const { app, fake, publisher } = await setup(t)
  const first = await publish(app, publisher.headers, beeBody('aging', fake.url))
  const patch = (payload: object, headers = publisher.headers) => app.inject({ method: 'PATCH', url: '/api/bees/aging', headers, payload })
  const execute = () => app.inject({ method: 'POST', url: '/api/bees/aging/execute', payload: { text: 'hi' } })

  const inactive = await patch({ status: 'inactive' })
  t.equal(inactive.json().status, 'inactive')
  t.ok(Date.parse(inactive.json().lastUpdated) >= Date.parse((first as unknown as { lastUpdated: string }).lastUpdated), 'lastUpdated moves')
  t.equal((await execute()).json().code, 'BEE_INACTIVE')
  t.equal((await patch({ status: 'active' })).json().status, 'active')

  t.equal((await patch({ status: 'deprecated' })).json().code, 'STATUS_MESSAGE_REQUIRED')
  t.equal((await patch({ sunsetAt: '2027-01-01T00:00:00Z' })).json().code, 'SUNSET_WITHOUT_DEPRECATION')
  const deprecated = await patch({ status: 'deprecated', statusMessage: 'Use shouter-2.', sunsetAt: '2027-01-01T00:00:00Z' })
  t.match(deprecated.json(), { status: 'deprecated', statusMessage: 'Use shouter-2.', sunsetAt: '2027-01-01T00:00:00Z' })
  const stillRuns = await execute()
  t.equal(stillRuns.statusCode, 200, 'a deprecated Bee still executes')
  t.match(stillRuns.headers.deprecation, /^@\d+$/)
  t.equal(stillRuns.headers.sunset, 'Fri, 01 Jan 2027 00:00:00 GMT')
  t.notOk((await app.inject('/api/bees')).json().bees.some((bee: { id: string }) => bee.id === 'aging'))
  t.equal((await app.inject('/api/bees/aging')).json().status, 'deprecated')

  const revive = await patch({ status: 'active' })
  t.equal(revive.statusCode, 403)
  t.equal(revive.json().code, 'BEE_DEPRECATED')
  t.equal((await patch({ status: 'active' }, adminHeaders)).json().status, 'active', 'the operator revives it')

  // A narrowed input breaks callers: a new major.
  const schemaChange = await patch({ inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 3 } }, required: ['text'] }, version: '2.0.0' })
  t.equal(schemaChange.statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/aging/execute', payload: { text: 'toolong' } })).statusCode, 400, 'the new schema validates at once')

  t.equal((await app.inject({ method: 'DELETE', url: '/api/bees/aging', headers: publisher.headers })).statusCode, 204)
  t.equal((await app.inject('/api/bees/aging')).statusCode, 404)
  t.equal((await execute()).statusCode, 404)
  t.equal((await app.inject('/api/bees/aging/openapi.json')).statusCode, 404, 'nor its OpenAPI document')
})

test('a PATCH of a Bee removed while it was being changed answers 404, not the change', async (t) => {
  const { app, fake, publisher } = await setup(t)
  await publish(app, publisher.headers, beeBody('fleeting', fake.url))
  const store = app.ledger.catalog
  const { updateBee } = store
  // The removal commits between the PATCH's read of the Bee and its write.
  store.updateBee = async (bee) => {
    await store.deleteBee(bee.id)
    return await updateBee(bee)
  }
  const changed = await app.inject({ method: 'PATCH', url: '/api/bees/fleeting', headers: publisher.headers, payload: { name: 'Too late' } })
  store.updateBee = updateBee
  t.equal(changed.statusCode, 404)
  t.equal(changed.json().code, 'BEE_NOT_FOUND')
  t.equal((await app.inject('/api/bees/fleeting')).statusCode, 404, 'and it stays removed')
})

test('costPerCall may be left out (the spec: 0 for free Bees); a pay-per-use Bee must name its price', async (t) => {
  const { app, fake, publisher } = await setup(t)
  const attempt = (id: string, pricing: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody(id, fake.url, { pricing }) })
  const free = await attempt('free-no-price', { type: 'free' })
  t.equal(free.statusCode, 201, free.body)
  t.match(free.json().pricing, { type: 'free', costPerCall: 0 })
  const plan = { periodPrice: 5, periodDays: 30, includedCalls: 100, overagePrice: 0.01 }
  const subscription = await attempt('plan-no-price', { type: 'subscription', plan })
  t.equal(subscription.statusCode, 201, subscription.body)
  t.match(subscription.json().pricing, { type: 'subscription', costPerCall: 0.01 }, 'a subscription\'s price is its overage price')
  const paid = await attempt('paid-no-price', { type: 'pay-per-use' })
  t.equal(paid.statusCode, 400)
  t.match(paid.json(), { code: 'INVALID_PRICE', message: /costPerCall above 0/ })
  const patched = await app.inject({ method: 'PATCH', url: '/api/bees/free-no-price', headers: publisher.headers, payload: { pricing: { type: 'free' } } })
  t.equal(patched.statusCode, 200, 'a change may leave it out too')
})

test('publishing refuses bad ids, prices and schemas with the reason', async (t) => {
  const { app, fake, publisher } = await setup(t)
  const attempt = (extra: Record<string, unknown>, id = 'candidate') =>
    app.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody(id, fake.url, extra) })
  t.equal((await attempt({}, 'sentiment-analyzer')).json().code, 'BEE_ID_RESERVED')
  t.equal((await attempt({}, 'Not_Kebab')).json().code, 'VALIDATION_FAILED')
  await publish(app, publisher.headers, beeBody('taken', fake.url))
  t.equal((await attempt({}, 'taken')).json().code, 'BEE_ID_TAKEN')
  t.equal((await attempt({ pricing: { type: 'subscription', costPerCall: 1 } })).statusCode, 400)
  t.equal((await attempt({ pricing: { type: 'pay-per-use', costPerCall: 0 } })).json().code, 'INVALID_PRICE')
  t.equal((await attempt({ pricing: { type: 'pay-per-use', costPerCall: 0.0000001 } })).json().code, 'INVALID_AMOUNT')

  const refusedSchemas: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a remote $ref', { inputSchema: { type: 'object', properties: { a: { $ref: 'https://example.com/s.json' } } } }, /not local/],
    ['a recursive $ref', { outputSchema: { type: 'object', properties: { next: { $ref: '#' } } } }, /recursive/],
    ['a $ref to nothing', { inputSchema: { type: 'object', properties: { a: { $ref: '#/definitions/none' } } } }, /points at nothing/],
    ['a $ref into Object.prototype', { inputSchema: { type: 'object', properties: { a: { $ref: '#/__proto__' } } } }, /points at nothing/],
    ['a $ref to an inherited method', { outputSchema: { type: 'object', properties: { a: { $ref: '#/constructor' } } } }, /points at nothing/],
    ['if/then', { inputSchema: { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } } }, /"if" has no OpenAPI 3.0 equivalent/],
    ['an unknown type', { inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }, /not a valid JSON Schema/],
    ['an unknown keyword', { inputSchema: { type: 'object', properties: { a: { type: 'string', minLenght: 2 } } } }, /not a valid JSON Schema/],
    ['a non-object input', { inputSchema: { type: 'string' } }, /type "object"/],
    ['several types', { outputSchema: { type: ['string', 'number'] } }, /list of types/],
    ['tuple items', { outputSchema: { type: 'array', items: [{ type: 'string' }] } }, /tuple/]
  ]
  for (const [what, extra, reason] of refusedSchemas) {
    const response = await attempt(extra)
    t.equal(response.statusCode, 400, what)
    t.match(response.json(), { code: 'INVALID_SCHEMA', message: reason }, what)
  }

  const converted = await publish(app, publisher.headers, beeBody('converted', fake.url, { inputSchema: draft07Input }))
  const record = (await app.inject('/api/bees/converted')).json()
  t.same(record.inputSchema, {
    type: 'object',
    properties: {
      text: { type: 'string', minLength: 1 },
      mode: { enum: ['loud'] },
      note: { type: 'string', nullable: true },
      level: { type: 'number', exclusiveMinimum: 0 }
    },
    required: ['text']
  }, 'local $refs inlined, const as enum, [T, null] as nullable, $schema and definitions dropped')
  t.ok(converted)
  const document = (await app.inject('/api/bees/converted/openapi.json')).json()
  t.same(document.paths['/api/bees/converted/execute'].post.requestBody.content['application/json'].schema.properties.level,
    { type: 'number', minimum: 0, exclusiveMinimum: true }, 'exclusive bounds in the 3.0 spelling')
  await t.resolves(SwaggerParser.validate(structuredClone(document)))
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/converted/execute', payload: { text: 'a', level: 0 } })).statusCode, 400, 'exclusiveMinimum is enforced')
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/converted/execute', payload: { text: 'a', note: null, mode: 'loud' } })).statusCode, 200)
})

test('endpoints on loopback, private, link-local or metadata addresses are refused', async (t) => {
  const app = await build(t)
  const publisher = await createPublisher(app)
  const endpoints = [
    'https://127.0.0.1/x', 'https://[::1]/x', 'https://169.254.169.254/latest/meta-data', 'https://10.0.0.1/x',
    'https://192.168.1.20/x', 'https://[fd00::1]/x', 'https://[::ffff:10.0.0.1]/x', 'https://[::127.0.0.1]/x', 'https://[::a9fe:a9fe]/x', 'https://localhost/x',
    'http://example.com/x', 'https://user:pass@example.com/x', 'not a url'
  ]
  for (const endpoint of endpoints) {
    const response = await app.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('ssrf', endpoint) })
    t.equal(response.statusCode, 400, endpoint)
    t.equal(response.json().code, 'ENDPOINT_FORBIDDEN', endpoint)
  }
})
