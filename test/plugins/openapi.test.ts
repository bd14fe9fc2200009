import { readFileSync } from 'node:fs'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import SwaggerParser from '@apidevtools/swagger-parser'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { test } from 'tap'
import { startFakeOpenMeteo } from '../fake-open-meteo.js'
import { adminHeaders, build, createWallet, sharedApp } from '../helper.js'
import { beeBody, publish, publishingSetup } from '../publishing-helper.js'

// The tests that only read the default app's document share one.
const defaultApp = sharedApp()
const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license: string }

test('the OpenAPI document is valid OpenAPI 3.0.3, version 1.0.0', async (t) => {
  const app = await defaultApp()
  const response = await app.inject('/openapi/openapi.json')
  t.equal(response.statusCode, 200)
  const document = response.json()
  t.equal(document.openapi, '3.0.3')
  t.equal(document.info.version, '1.0.0')
  // validate() dereferences in place: give it a copy and keep the original for the checks below.
  await t.resolves(SwaggerParser.validate(structuredClone(document)), 'passes the OpenAPI 3.0 schema and semantic checks')
  // metricsToken only with METRICS_TOKEN, when /metrics uses it (tested with the lint below).
  t.same(Object.keys(document.components.securitySchemes).sort(), ['adminToken', 'publisherKey', 'walletToken'])
  t.match(document.components.securitySchemes.walletToken, { type: 'apiKey', in: 'header', name: 'X-Registry-Wallet-Token' })
  t.match(document.components.securitySchemes.adminToken, { type: 'http', scheme: 'bearer' })
})

test('each built-in Bee has its own execute path with its exact schemas', async (t) => {
  const app = await defaultApp()
  const document = (await app.inject('/openapi/openapi.json')).json()
  const { bees } = (await app.inject('/api/bees')).json<{ bees: Array<Record<string, any>> }>()
  for (const bee of bees) {
    const operation = document.paths[`/api/bees/${bee.id}/execute`]?.post
    t.ok(operation, `${bee.id} has an execute path`)
    const body = operation.requestBody.content['application/json'].schema
    t.same(body.required, bee.inputSchema.required, `${bee.id} body requires what its inputSchema requires`)
    t.same(Object.keys(body.properties), Object.keys(bee.inputSchema.properties))
    const honey = operation.responses['200'].content['application/json'].schema
    t.same(honey.allOf[0], { $ref: '#/components/schemas/Honey' })
    t.same(document.components.schemas.Honey.required, ['beeId', 'timestamp', 'result', 'confidence', 'freshness'])
    t.same(honey.allOf[1].properties.result.required, bee.outputSchema.required, `${bee.id} Honey.result is its outputSchema`)
    t.equal(Boolean(operation.responses['402']), bee.pricing.type === 'pay-per-use', `${bee.id} documents 402 when paid`)
    t.same(operation.security, bee.pricing.type === 'pay-per-use' ? [{ walletToken: [] }] : [])
  }
})

test('the document describes discovery, detail, the generic execute path and nullable fields the 3.0 way', async (t) => {
  const app = await defaultApp()
  const document = (await app.inject('/openapi/openapi.json')).json()
  t.ok(document.paths['/api/bees'].get)
  t.ok(document.paths['/api/bees/{id}'].get.responses['404'])
  t.ok(document.paths['/api/bees/{id}/execute'].post.responses['402'])
  const text = JSON.stringify(document)
  t.notMatch(text, /"type":"null"/, 'no type null (3.1 only)')
  t.notMatch(text, /"const":/, 'no const (3.1 only)')
  t.same(document.paths['/api/bees/{id}'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/Bee' })
  const ownerId = document.components.schemas.Bee.properties.ownerId
  t.same(ownerId, { type: 'string', nullable: true, description: ownerId.description })
})

test('Swagger UI is served at /docs', async (t) => {
  const app = await defaultApp()
  const response = await app.inject('/docs/')
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /text\/html/)
})

test('execute 200s declare the headers the service sends, so an agent can read its cost and balance', async (t) => {
  const app = await defaultApp()
  const doc = (await app.inject('/openapi/openapi.json')).json()
  const headersOf = (id: string) => Object.keys(doc.paths[`/api/bees/${id}/execute`].post.responses['200'].headers)
  const paid = headersOf('sentiment-analyzer')
  for (const name of ['x-registry-cost', 'x-registry-balance', 'idempotent-replayed', 'deprecation', 'sunset', 'x-request-id']) {
    t.ok(paid.includes(name), `a paid Bee declares ${name}`)
  }
  t.notOk(headersOf('text-summarizer').includes('x-registry-cost'), 'a free Bee has no cost header')
  const body = doc.paths['/api/bees/sentiment-analyzer/execute'].post.responses['200'].content['application/json'].schema
  t.notOk('headers' in body, 'the headers are not part of the body schema')
  const response = await app.inject({
    method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: 'One sentence. Another one.' }
  })
  t.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  t.same(Object.keys(response.json()), ['beeId', 'timestamp', 'result', 'confidence', 'freshness'], 'the body is still Honey only')
})

for (const [label, env] of [['by default', {}], ['with /metrics on a token', { METRICS_TOKEN: 'metrics-token-0123456789' }]] as const) {
  test(`Redocly's recommended rules find no error and no warning in the document (${label})`, async (t) => {
    const app = await (label === 'by default' ? defaultApp() : build(t, { env }))
    const source = (await app.inject('/openapi/openapi.json')).body
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config: await createConfig({ extends: ['recommended'] }) })
    t.same(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? ''}`), [])
  })
}

test('the server is relative unless PUBLIC_BASE_URL names it, and the license is the package\'s', async (t) => {
  const relative = (await (await defaultApp()).inject('/openapi/openapi.json')).json()
  t.same(relative.servers.map((server: { url: string }) => server.url), ['/'])
  t.equal(relative.info.license.name, packageJson.license)
  const app = await build(t, { env: { PUBLIC_BASE_URL: 'https://apiary.example.com/v1/' } })
  const configured = (await app.inject('/openapi/openapi.json')).json()
  t.same(configured.servers.map((server: { url: string }) => server.url), ['https://apiary.example.com/v1'])
  t.ok(configured.paths['/api/bees'], 'the paths stay the ones this process serves (the prefix is the gateway\'s)')
})

test('every public operation says so with an empty security requirement', async (t) => {
  const app = await defaultApp()
  const document = (await app.inject('/openapi/openapi.json')).json()
  for (const path of ['/health', '/ready', '/api/bees', '/api/bees/{id}', '/api/bees/{id}.md', '/llms.txt', '/llms-full.txt', '/.well-known/agent-card.json']) {
    t.same(document.paths[path].get.security, [], path)
  }
  for (const path of ['/mcp', '/a2a', '/api/bees/{id}/execute']) {
    t.same(document.paths[path].post.security, [{}, { walletToken: [] }], `${path}: a wallet token only for pay-per-use Bees`)
  }
})

test('no description holds an angle-bracket placeholder, which Swagger UI would read as HTML', async (t) => {
  const app = await defaultApp()
  const descriptions: string[] = []
  const collect = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(collect)
    else if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'description' && typeof inner === 'string') descriptions.push(inner)
        else collect(inner)
      }
    }
  }
  collect((await app.inject('/openapi/openapi.json')).json())
  t.ok(descriptions.length > 100)
  // Inside a Markdown code span, `<new>` is shown as written.
  t.same(descriptions.filter((text) => /<[A-Za-z]/.test(text.replace(/`[^`]*`/g, ''))), [])
})

test('the document is sent br or gzip as the client accepts, with a weak ETag that gives 304 until the registry changes', async (t) => {
  const app = await build(t)
  const plain = await app.inject('/openapi/openapi.json')
  t.equal(plain.headers['content-encoding'], undefined, 'as it is when the client accepts no coding')
  t.match(plain.headers.etag, /^W\/"[\w-]+"$/)
  for (const [coding, decode] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
    const encoded = await app.inject({ url: '/openapi/openapi.json', headers: { 'accept-encoding': coding } })
    t.equal(encoded.headers['content-encoding'], coding)
    t.match(encoded.headers.vary, /accept-encoding/i)
    t.equal(encoded.headers.etag, plain.headers.etag, 'one ETag for every coding of the document')
    t.ok(encoded.rawPayload.length < plain.rawPayload.length / 5, `${coding} is at most a fifth of the size`)
    t.equal(decode(encoded.rawPayload).toString(), plain.body)
  }
  const again = await app.inject({ url: '/openapi/openapi.json', headers: { 'if-none-match': String(plain.headers.etag), 'accept-encoding': 'br' } })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  await app.inject({ method: 'PATCH', url: '/api/bees/weather-sensor', headers: adminHeaders, payload: { status: 'inactive' } })
  const changed = await app.inject({ url: '/openapi/openapi.json', headers: { 'if-none-match': String(plain.headers.etag) } })
  t.equal(changed.statusCode, 200, 'a registry change is a new document')
  t.not(changed.headers.etag, plain.headers.etag)
})

test('shared shapes and refusals appear once, and the document stays small', async (t) => {
  const app = await defaultApp()
  const document = (await app.inject('/openapi/openapi.json')).body
  // The budget grows with the API, not with repetition: bytes per operation (the three built-in Bees' schemas included,
  // and an example on every response: about 240 bytes an operation, shared shapes' examples given once).
  const operations = Object.values(JSON.parse(document).paths as Record<string, object>)
    .flatMap((path) => Object.keys(path).filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))).length
  const perOperation = Buffer.byteLength(document) / operations
  t.ok(perOperation < 3_000, `${Math.round(perOperation)} bytes per operation over ${operations} operations (${Buffer.byteLength(document)} in all): ` +
    'shared shapes and refusals by $ref keep it flat as operations are added')
  t.equal(document.match(/Stable machine-readable code/g)?.length, 1, 'the error body once')
})

test('the document is at most 180 KB, and as large with many published Bees as with none', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t)
  const sizeNow = async () => Buffer.byteLength((await app.inject('/openapi/openapi.json')).body)
  const empty = await sizeNow()
  // Issue 25 set 150 KB at 149.7 KB; this round's operations took it to 171 KB: Bee versions (a route, a header on the
  // execute paths), the OpenAPI import (two routes, 9.5 KB) and runs (three routes, the 202 and Prefer of the execute
  // path, 6.6 KB). Growth per operation is held by the test above; this bound is what no catalog size may pass.
  t.ok(empty <= 180_000, `${empty} bytes (at most 180 KB at any catalog size)`)
  for (let i = 0; i < 40; i++) {
    await publish(app, publisher.headers, beeBody(`shouter-${i}`, fake.url, i % 2 === 0 ? {} : { pricing: { type: 'pay-per-use', costPerCall: 0.01 } }))
  }
  t.equal(await sizeNow(), empty, 'published Bees are described by documents of their own (GET /api/bees/{id}/openapi.json)')
})

test('every request body has an example, and the execute examples work as printed', async (t) => {
  const openMeteo = await startFakeOpenMeteo()
  t.teardown(openMeteo.close)
  const app = await build(t, { env: { OPEN_METEO_URL: openMeteo.url } })
  const wallet = await createWallet(app, 1)
  const document = (await app.inject('/openapi/openapi.json')).json()
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      const body = operation.requestBody?.content['application/json']
      if (body !== undefined) t.not(body.example, undefined, `${method} ${path} has a body example`)
    }
  }
  // Parameters many operations give alike are listed once, in components/parameters.
  const given = (parameter: { $ref?: string }) => parameter.$ref === undefined ? parameter : document.components.parameters[parameter.$ref.split('/').pop() as string]
  const id = document.paths['/api/bees/{id}/execute'].post.parameters.map(given).find((parameter: { in: string }) => parameter.in === 'path').example
  t.equal(id, 'text-summarizer', 'the id example is a Bee every registry has')
  for (const path of ['/api/bees/{id}/execute', '/api/bees/text-summarizer/execute', '/api/bees/sentiment-analyzer/execute', '/api/bees/weather-sensor/execute']) {
    const response = await app.inject({
      method: 'POST',
      url: path.replace('{id}', id),
      headers: { 'x-registry-wallet-token': wallet.token },
      payload: document.paths[path].post.requestBody.content['application/json'].example
    })
    t.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 200)}`)
  }
})
