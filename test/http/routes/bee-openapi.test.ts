import SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3 } from 'openapi-types'
import { test } from 'tap'
import { createWallet } from '../../helper.js'
import { beeBody, draft07Input, publish, publishingSetup, shoutInput, shoutOutput } from '../../publishing-helper.js'

type Document = OpenAPIV3.Document

/** The one operation of a Bee's document, its path and its server-relative URL. */
function onlyOperation (document: Document) {
  const entries = Object.entries(document.paths) as Array<[string, OpenAPIV3.PathItemObject]>
  const [path, item] = entries[0] ?? ['', {}]
  return { path, operation: item.post as OpenAPIV3.OperationObject, count: entries.length }
}

/** The request a client builds from the document: its server, its path, its body example, the wallet header when it asks for one. */
function requestFrom (document: Document, walletToken: string) {
  const { path, operation } = onlyOperation(document)
  const body = (operation.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']
  const server = document.servers?.[0]?.url ?? '/'
  const scheme = document.components?.securitySchemes?.walletToken as OpenAPIV3.ApiKeySecurityScheme | undefined
  const paid = operation.security?.some((requirement) => 'walletToken' in requirement) === true
  return {
    method: 'POST' as const,
    url: new URL(path.replace(/^\//, ''), new URL(server, 'http://apiary.test/')).pathname,
    headers: paid && scheme !== undefined ? { [scheme.name]: walletToken } : {},
    payload: body?.example as object
  }
}

test('a published Bee\'s own document is valid OpenAPI 3.0.3 with its exact schemas, and its example call works', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t)
  await publish(app, publisher.headers, beeBody('shouter', fake.url, { inputSchema: { ...shoutInput, examples: [{ text: 'hello bees' }] } }))
  const response = await app.inject('/api/bees/shouter/openapi.json')
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/json/)
  const document = response.json<Document>()
  await t.resolves(SwaggerParser.validate(structuredClone(document)), 'passes swagger-parser\'s schema and semantic checks')
  t.equal(document.openapi, '3.0.3')
  t.equal(document.info.title, 'Shouter shouter')
  const { path, operation, count } = onlyOperation(document)
  t.equal(count, 1)
  t.equal(path, '/api/bees/shouter/execute', 'one operation: the Bee\'s execute call')
  t.equal(operation.operationId, 'execute-shouter', 'a generator names the call after the Bee')
  t.same(operation.security, [], 'free: no wallet')
  const record = (await app.inject('/api/bees/shouter')).json<{ inputSchema: object }>()
  t.same((operation.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']?.schema, record.inputSchema, 'the body is its inputSchema')
  const honey = (operation.responses['200'] as OpenAPIV3.ResponseObject).content?.['application/json']?.schema as OpenAPIV3.SchemaObject
  t.same(honey.allOf?.[0], { $ref: '#/components/schemas/Honey' })
  t.same((honey.allOf?.[1] as OpenAPIV3.SchemaObject).properties?.result, shoutOutput)
  t.ok(document.components?.schemas?.Honey, 'the components it refers to come with it')
  t.notOk(document.components?.schemas?.Bee, 'and no others')

  t.equal((await app.inject('/api/bees/shouter')).json().openapi, '/api/bees/shouter/openapi.json', 'the detail record links it')
  t.match((await app.inject({ url: '/api/bees/shouter.md', headers: { host: 'localhost:3000' } })).body,
    '- OpenAPI: http://localhost:3000/api/bees/shouter/openapi.json', 'and the Markdown page')

  const call = await app.inject(requestFrom(document, ''))
  t.equal(call.statusCode, 200, call.body)
  t.match(call.json(), { beeId: 'shouter', result: { shout: 'HELLO BEES', length: 10 } })
})

test('a paid Bee\'s document asks for the wallet header, lists its upstream errors, and its example call is charged', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t)
  await publish(app, publisher.headers, beeBody('converted', fake.url, { inputSchema: draft07Input, pricing: { type: 'pay-per-use', costPerCall: 0.01 } }))
  const document = (await app.inject('/api/bees/converted/openapi.json')).json<Document>()
  await t.resolves(SwaggerParser.validate(structuredClone(document)))
  const { operation } = onlyOperation(document)
  t.same(operation.security, [{ walletToken: [] }])
  t.match(document.components?.securitySchemes?.walletToken, { type: 'apiKey', in: 'header', name: 'X-Registry-Wallet-Token' })
  t.ok(operation.responses['402'] && operation.responses['502'], 'payment and upstream failures are documented')
  t.same((operation.responses['404'] as any)?.content['application/json'].schema.allOf[1].properties.code.enum, ['BEE_VERSION_NOT_FOUND'],
    'the Bee exists: its 404 is only for a version it does not have')
  const wallet = await createWallet(app, 1)
  const call = await app.inject(requestFrom(document, wallet.token))
  t.equal(call.statusCode, 200, call.body)
  t.equal(fake.calls.length, 1)
})

test('every built-in Bee has its document, its operation the service document\'s, and its example call works', async (t) => {
  const { app } = await publishingSetup(t)
  const service = (await app.inject('/openapi/openapi.json')).json<Document>()
  const wallet = await createWallet(app, 1)
  for (const id of ['text-summarizer', 'sentiment-analyzer']) {
    const document = (await app.inject(`/api/bees/${id}/openapi.json`)).json<Document>()
    await t.resolves(SwaggerParser.validate(structuredClone(document)), id)
    const { path, operation } = onlyOperation(document)
    t.same((operation.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']?.schema,
      (service.paths[path]?.post?.requestBody as OpenAPIV3.RequestBodyObject).content['application/json']?.schema, `${id}: the same input schema`)
    const call = await app.inject(requestFrom(document, wallet.token))
    t.equal(call.statusCode, 200, `${id}: ${call.body.slice(0, 200)}`)
  }
})

test('the document has a strong ETag, gives 304 until the Bee changes, and 404 for no Bee', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t)
  await publish(app, publisher.headers, beeBody('shouter', fake.url))
  const first = await app.inject('/api/bees/shouter/openapi.json')
  const etag = first.headers.etag as string
  t.match(etag, /^"[A-Za-z0-9_-]+"$/)
  t.equal((await app.inject({ url: '/api/bees/shouter/openapi.json', headers: { 'if-none-match': etag } })).statusCode, 304)
  const patched = await app.inject({ method: 'PATCH', url: '/api/bees/shouter', headers: publisher.headers, payload: { description: 'Shouts louder.' } })
  t.equal(patched.statusCode, 200, patched.body)
  const changed = await app.inject({ url: '/api/bees/shouter/openapi.json', headers: { 'if-none-match': etag } })
  t.equal(changed.statusCode, 200)
  t.not(changed.headers.etag, etag)
  t.match(changed.json(), { paths: { '/api/bees/shouter/execute': { post: { description: 'Shouts louder.' } } } })
  const missing = await app.inject('/api/bees/no-such-bee/openapi.json')
  t.equal(missing.statusCode, 404)
  t.same(Object.keys(missing.json()), ['error', 'code', 'message'])
  t.equal(missing.json().code, 'BEE_NOT_FOUND')
})

test('the service document is the same size with no published Bee and with many', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t)
  const before = (await app.inject('/openapi/openapi.json')).body
  for (let index = 0; index < 25; index++) await publish(app, publisher.headers, beeBody(`shouter-${index}`, fake.url))
  const after = (await app.inject('/openapi/openapi.json')).body
  t.equal(Buffer.byteLength(after), Buffer.byteLength(before))
  t.equal(after, before, 'byte for byte: published Bees are described by their own documents')
  const paths = Object.keys(JSON.parse(after).paths as object)
  t.ok(paths.includes('/api/bees/{id}/execute') && paths.includes('/api/bees/{id}/openapi.json'), 'the generic execute path and where each Bee\'s own document is')
})
