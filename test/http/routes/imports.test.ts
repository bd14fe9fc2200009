import SwaggerParser from '@apidevtools/swagger-parser'
import { TaskState, type Task } from '@a2a-js/sdk'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { backends, runSql } from '../../databases.js'
import { PETSTORE_KEY, petstoreDocument, petstoreSwagger2, startFakePetstore } from '../../fake-petstore.js'
import { adminHeaders, balanceOf, build, createWallet, execute, SECRETS_KEY } from '../../helper.js'
import { createPublisher } from '../../publishing-helper.js'
import { beeMessage, connect, listening, send } from '../a2a/clients.js'

type Build = Parameters<typeof build>[0]

async function setup (t: Build, env: Record<string, string> = {}, logLines?: string[]) {
  const petstore = await startFakePetstore()
  t.teardown(petstore.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', REMOTE_BEE_TIMEOUT_MS: '2000', ...env }, ...(logLines === undefined ? {} : { logLines }) })
  const publisher = await createPublisher(app)
  return { app, petstore, publisher }
}

const post = (app: FastifyInstance, url: string, headers: Record<string, string>, payload: object) =>
  app.inject({ method: 'POST', url, headers, payload })

const everyOperation = [
  { operationId: 'listPets', priceMicros: 0 },
  { operationId: 'createPet', priceMicros: 0 },
  { method: 'get', path: '/pets/{petId}', priceMicros: 10_000 }
]

for (const version of ['3.0', '3.1'] as const) {
  test(`an OpenAPI ${version} preview lists each operation as a Bee, its parameters merged into one input`, async (t) => {
    const { app, petstore, publisher } = await setup(t)
    const response = await post(app, '/api/imports/preview', publisher.headers, { source: { document: petstoreDocument(petstore.url, version) }, idPrefix: 'pets' })
    t.equal(response.statusCode, 200, response.body)
    const operations = response.json().operations as Array<Record<string, any>>
    t.same(operations.map((operation) => [operation.id, operation.method, operation.path, operation.importable]), [
      ['pets-list-pets', 'GET', '/pets', true],
      ['pets-create-pet', 'POST', '/pets', true],
      ['pets-show-pet-by-id', 'GET', '/pets/{petId}', true]
    ])
    const show = operations[2] as Record<string, any>
    t.match(show, {
      name: 'Info for a pet',
      inputSchema: { type: 'object', properties: { petId: { type: 'string', description: 'The pet\'s id.' }, 'X-Trace-Id': { type: 'string', pattern: String } }, required: ['petId'] },
      outputSchema: { type: 'object', required: ['id', 'name'], properties: { tag: { type: 'string', nullable: true } } },
      mapping: {
        method: 'GET',
        serverUrl: `${petstore.url}/v1`,
        path: '/pets/{petId}',
        parameters: [{ name: 'petId', in: 'path' }, { name: 'X-Trace-Id', in: 'header' }],
        body: 'none',
        output: 'object',
        credential: { in: 'header', name: 'X-Api-Key' }
      }
    })
    t.ok(show.checks.every((check: { passed: boolean }) => check.passed))
    t.match(operations[0], { mapping: { output: 'wrapped', parameters: [{ name: 'limit', in: 'query' }, { name: 'tag', in: 'query' }] }, outputSchema: { properties: { data: { type: 'array' } } } })
    t.match(operations[1], { inputSchema: { properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] }, mapping: { body: 'properties' } })

    const byOperator = await post(app, '/api/imports/preview', adminHeaders, { source: { document: petstoreDocument(petstore.url, version) } })
    t.equal(byOperator.statusCode, 200, 'the operator previews too')
    t.equal(petstore.requests.length, 0, 'a preview calls nothing upstream')
  })
}

test('a Swagger 2.0 document is converted: the same Bees as its OpenAPI 3 twin, calling the same URLs with the key', async (t) => {
  const { app, petstore, publisher } = await setup(t)
  const preview = async (document: object) => {
    const response = await post(app, '/api/imports/preview', publisher.headers, { source: { document }, idPrefix: 'pets' })
    t.equal(response.statusCode, 200, response.body)
    return response.json().operations as Array<Record<string, any>>
  }
  const twin = await preview(petstoreDocument(petstore.url))
  const converted = await preview(petstoreSwagger2(petstore.url))
  t.same(converted.map((operation) => operation.mapping), twin.map((operation) => operation.mapping), 'the same request mappings: server, path, parameters, body, credential')
  t.same(converted.map((operation) => [operation.id, operation.importable, Object.keys(operation.inputSchema.properties ?? {})]),
    twin.map((operation) => [operation.id, operation.importable, Object.keys(operation.inputSchema.properties ?? {})]), 'the same Bees and inputs')

  const applied = await post(app, '/api/imports', publisher.headers, {
    source: { document: petstoreSwagger2(petstore.url) }, idPrefix: 'pets', credential: PETSTORE_KEY, operations: everyOperation
  })
  t.equal(applied.statusCode, 201, applied.body)
  const wallet = await createWallet(app, 1)
  t.match((await execute(app, 'pets-show-pet-by-id', { petId: '2', 'X-Trace-Id': 'abc' }, wallet.token)).json(), { result: { id: 2, name: 'Tom', traceId: 'abc' } })
  t.match(petstore.requests.at(-1), { method: 'GET', url: '/v1/pets/2', headers: { 'x-api-key': PETSTORE_KEY } }, 'the path parameter, the header and the key')
  t.match((await execute(app, 'pets-list-pets', { limit: 1, tag: ['dog'] })).json(), { result: { data: [{ id: 1 }] } })
  t.equal(petstore.requests.at(-1)?.url, '/v1/pets?limit=1&tag=dog', 'the query, a multi array as repeated keys')
  t.match((await execute(app, 'pets-create-pet', { name: 'Kit' })).json(), { result: { id: 3, name: 'Kit' } })
  t.same(JSON.parse(petstore.requests.at(-1)?.body ?? ''), { name: 'Kit' }, 'the body parameter is the JSON body')
  await t.resolves(SwaggerParser.validate((await app.inject('/api/bees/pets-create-pet/openapi.json')).json()), 'its own document is valid OpenAPI')
})

test('imported Bees are described in OpenAPI and call the upstream in its own language, with its key', async (t) => {
  const logLines: string[] = []
  const { app, petstore, publisher } = await setup(t, {}, logLines)
  const applied = await post(app, '/api/imports', publisher.headers, {
    source: { document: petstoreDocument(petstore.url, '3.1') }, idPrefix: 'pets', credential: PETSTORE_KEY, operations: everyOperation
  })
  t.equal(applied.statusCode, 201, applied.body)
  t.same(applied.json().bees.map((bee: { id: string }) => bee.id), ['pets-list-pets', 'pets-create-pet', 'pets-show-pet-by-id'])
  t.match(applied.json().bees[2], { ownerId: publisher.id, pricing: { type: 'pay-per-use', costPerCall: 0.01 }, upstreamEndpoint: `${petstore.url}/v1/pets/{petId}` })

  for (const id of ['pets-list-pets', 'pets-create-pet', 'pets-show-pet-by-id']) {
    const document = (await app.inject(`/api/bees/${id}/openapi.json`)).json()
    await t.resolves(SwaggerParser.validate(structuredClone(document)), `${id}'s own document is valid OpenAPI`)
  }

  const wallet = await createWallet(app, 1)
  const shown = await execute(app, 'pets-show-pet-by-id', { petId: '1/2', 'X-Trace-Id': 'abc' }, wallet.token)
  t.equal(shown.statusCode, 502, 'the upstream\'s 404 is an upstream error')
  t.equal(shown.json().code, 'BEE_UPSTREAM_ERROR')
  const request = petstore.requests.at(-1)
  t.equal(request?.method, 'GET')
  t.equal(request?.url, '/v1/pets/1%2F2', 'the path parameter is substituted, encoded')
  t.equal(request?.headers['x-api-key'], PETSTORE_KEY, 'the credential goes where the security scheme says')
  t.equal(request?.headers['x-trace-id'], 'abc')
  t.equal(request?.headers['x-apiary-signature'], undefined, 'the upstream gets its own request, not Apiary\'s contract')

  const injected = await execute(app, 'pets-show-pet-by-id', { petId: '1', 'X-Trace-Id': 'a\r\nX-Api-Key: other' }, wallet.token)
  t.equal(injected.json().code, 'VALIDATION_FAILED', 'a header value cannot break its header')

  const found = await execute(app, 'pets-show-pet-by-id', { petId: '1' }, wallet.token)
  t.match(found.json(), { beeId: 'pets-show-pet-by-id', result: { id: 1, name: 'Rex', tag: 'dog' } })
  t.equal(await balanceOf(app, wallet.id), 0.99, 'the paid call was captured once; the failed one (404 upstream) was not charged')

  const listed = await execute(app, 'pets-list-pets', { limit: 5, tag: ['cat'] })
  t.match(listed.json(), { result: { data: [{ id: 2, name: 'Tom' }] } })
  t.equal(petstore.requests.at(-1)?.url, '/v1/pets?limit=5&tag=cat')

  const overMcp = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pets-list-pets', arguments: { tag: ['dog'] } } }
  })
  t.match(overMcp.json(), { result: { structuredContent: { data: [{ id: 1, name: 'Rex' }] } } }, 'MCP calls it through the same core')
  t.equal(petstore.requests.at(-1)?.url, '/v1/pets?tag=dog')

  const created = await execute(app, 'pets-create-pet', { name: 'Kit', tag: 'cat' })
  t.equal(created.statusCode, 200, created.body)
  t.match(created.json(), { result: { id: 3, name: 'Kit' } })
  t.same(JSON.parse(petstore.requests.at(-1)?.body ?? ''), { name: 'Kit', tag: 'cat' })
  t.equal(petstore.requests.at(-1)?.headers['content-type'], 'application/json')

  const patched = await app.inject({ method: 'PATCH', url: '/api/bees/pets-list-pets', headers: publisher.headers, payload: { inputSchema: { type: 'object' } } })
  t.equal(patched.json().code, 'IMPORTED_BEE_FIELD', 'its schemas follow the operation')
  const renamed = await app.inject({ method: 'PATCH', url: '/api/bees/pets-list-pets', headers: publisher.headers, payload: { name: 'All pets', status: 'inactive' } })
  t.equal(renamed.statusCode, 200, 'its name and status change as any Bee\'s')
  const reactivated = await app.inject({ method: 'PATCH', url: '/api/bees/pets-list-pets', headers: publisher.headers, payload: { status: 'active' } })
  t.equal(reactivated.statusCode, 200)
  t.match((await execute(app, 'pets-list-pets', {})).json(), { result: { data: [{ id: 1 }, { id: 2 }] } }, 'a change keeps its mapping')

  const answers = [applied.body, (await app.inject({ url: '/api/bees/pets-show-pet-by-id', headers: publisher.headers })).body]
  t.notOk(answers.some((body) => body.includes(PETSTORE_KEY)), 'no answer shows the credential')
  t.notOk(logLines.some((line) => line.includes(PETSTORE_KEY)), 'no log line holds the credential')
})

test('an imported operation\'s Bee is called over A2A too, paid once', async (t) => {
  const petstore = await startFakePetstore()
  t.teardown(petstore.close)
  const { app, base } = await listening(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  const applied = await post(app, '/api/imports', publisher.headers, {
    source: { document: petstoreDocument(petstore.url) }, credential: PETSTORE_KEY, operations: [{ operationId: 'showPetById', priceMicros: 10_000 }]
  })
  t.equal(applied.statusCode, 201, applied.body)
  const wallet = await createWallet(app, 1)
  const client = await connect(base)
  const task = await send(client, beeMessage('show-pet-by-id', { petId: '2' }), { 'X-Registry-Wallet-Token': wallet.token }) as Task
  t.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
  const content = task.artifacts[0]?.parts[0]?.content
  t.match(content?.$case === 'data' ? content.value : null, { result: { id: 2, name: 'Tom' } })
  t.equal(petstore.requests.at(-1)?.url, '/v1/pets/2')
  t.equal(await balanceOf(app, wallet.id), 0.99)
})

test('an upstream failure voids the hold: nothing is charged', async (t) => {
  const { app, petstore, publisher } = await setup(t)
  const applied = await post(app, '/api/imports', publisher.headers, {
    source: { document: petstoreDocument(petstore.url) }, credential: PETSTORE_KEY, operations: [{ operationId: 'showPetById', priceMicros: 10_000 }]
  })
  t.equal(applied.statusCode, 201, applied.body)
  const wallet = await createWallet(app, 1)
  petstore.failWith = 500
  const failed = await execute(app, 'show-pet-by-id', { petId: '1' }, wallet.token)
  t.equal(failed.statusCode, 502)
  t.equal(failed.json().code, 'BEE_UPSTREAM_ERROR')
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('a document from a URL is fetched through the egress guard', async (t) => {
  const { app, petstore, publisher } = await setup(t)
  petstore.document = petstoreDocument('')
  const fromUrl = await post(app, '/api/imports/preview', publisher.headers, { source: { url: `${petstore.url}/openapi.json` } })
  t.equal(fromUrl.statusCode, 200, fromUrl.body)
  t.equal(fromUrl.json().operations[0].mapping.serverUrl, `${petstore.url}/v1`, 'a relative server resolves against the document\'s URL')

  petstore.document = [
    'openapi: 3.1.0',
    'info: {title: Petstore, version: "1"}',
    'servers: [{url: /v1}]',
    'paths:',
    '  /pets/{petId}:',
    '    get:',
    '      operationId: showPet',
    '      parameters: [{name: petId, in: path, required: true, schema: {type: integer}}]',
    '      responses: {"200": {description: A pet., content: {application/json: {schema: {type: object}}}}}'
  ].join('\n')
  const fromYaml = await post(app, '/api/imports/preview', publisher.headers, { source: { url: `${petstore.url}/openapi.json` } })
  t.match(fromYaml.json(), { operations: [{ id: 'show-pet', inputSchema: { properties: { petId: { type: 'integer' } } }, importable: true }] }, 'YAML too')
  petstore.document = 'openapi: [unclosed'
  t.equal((await post(app, '/api/imports/preview', publisher.headers, { source: { url: `${petstore.url}/openapi.json` } })).json().code, 'IMPORT_DOCUMENT_INVALID')
  const missing = await post(app, '/api/imports/preview', publisher.headers, { source: { url: `${petstore.url}/nothing.json` } })
  t.equal(missing.json().code, 'IMPORT_SOURCE_UNREADABLE')

  const guarded = await build(t)
  const other = await createPublisher(guarded)
  for (const url of [`${petstore.url}/openapi.json`, 'http://169.254.169.254/openapi.json', 'https://10.0.0.1/openapi.json']) {
    const refused = await post(guarded, '/api/imports/preview', other.headers, { source: { url } })
    t.equal(refused.statusCode, 400, url)
    t.equal(refused.json().code, 'IMPORT_SOURCE_FORBIDDEN', url)
  }
  t.equal(petstore.requests.filter((request) => request.url === '/openapi.json').length, 3, 'nothing was fetched from a private address')
})

test('a document that is not OpenAPI 3 or Swagger 2.0, or a choice it does not allow, is a clear 400', async (t) => {
  const { app, petstore, publisher } = await setup(t)
  const cases: Array<[object, string]> = [
    [{ source: { document: { openapi: '3.0.3', paths: {} } } }, 'IMPORT_DOCUMENT_INVALID'],
    [{ source: { document: { openapi: '3.0.3', info: { title: 'x', version: '1' }, paths: { '/a': { get: { responses: { 200: { $ref: '#/nowhere' } } } } } } } }, 'IMPORT_DOCUMENT_INVALID'],
    [{ source: { document: { hello: 'world' } } }, 'IMPORT_DOCUMENT_INVALID'],
    [{ source: { document: { swagger: '2.0', info: { title: 'x' }, paths: {} } } }, 'IMPORT_DOCUMENT_INVALID'],
    [{ source: { document: { swagger: '1.2', info: { title: 'x', version: '1' }, paths: {} } } }, 'IMPORT_DOCUMENT_INVALID']
  ]
  for (const [body, code] of cases) {
    const response = await post(app, '/api/imports/preview', publisher.headers, body)
    t.equal(response.statusCode, 400, response.body)
    t.equal(response.json().code, code)
  }
  const recursive = petstoreDocument(petstore.url) as any
  recursive.components.schemas.Pet.properties.parent = { $ref: '#/components/schemas/Pet' }
  const withLoop = await post(app, '/api/imports/preview', publisher.headers, { source: { document: recursive } })
  t.equal(withLoop.statusCode, 200, 'a recursive schema is a failed check, not a failed preview')
  t.match(withLoop.json().operations[2], { importable: false, checks: [{}, {}, {}, {}, { passed: true }, { name: 'outputSchema', passed: false, message: /refers to #\/components\/schemas\/Pet inside itself/ }] })

  const document = petstoreDocument(petstore.url)
  const unknown = await post(app, '/api/imports', publisher.headers, { source: { document }, operations: [{ operationId: 'deletePet', priceMicros: 0 }] })
  t.equal(unknown.json().code, 'IMPORT_OPERATION_UNKNOWN')
  const cookie = structuredClone(document) as any
  cookie.paths['/pets'].get.parameters.push({ name: 'session', in: 'cookie', schema: { type: 'string' } })
  const refused = await post(app, '/api/imports', publisher.headers, { source: { document: cookie }, operations: [{ operationId: 'listPets', priceMicros: 0 }] })
  t.equal(refused.json().code, 'IMPORT_OPERATION_REFUSED')
  t.match(refused.json().message, /parameters: parameter session is in cookie/)
  const keyless = await post(app, '/api/imports', publisher.headers, { source: { document }, operations: [{ operationId: 'listPets', priceMicros: 0 }] })
  t.equal(keyless.json().code, 'IMPORT_OPERATION_REFUSED')
  t.match(keyless.json().message, /needs an API key in the header X-Api-Key: send it as credential/)
  const byOperator = await post(app, '/api/imports', adminHeaders, { source: { document }, operations: [{ operationId: 'listPets', priceMicros: 0 }] })
  t.equal(byOperator.statusCode, 403)
  t.equal(byOperator.json().code, 'PUBLISHER_REQUIRED')
  const anonymous = await post(app, '/api/imports/preview', {}, { source: { document } })
  t.equal(anonymous.statusCode, 401)
})

for (const backend of backends) {
  test(`an imported Bee's mapping and sealed credential are stored, served, and resealed with a new key (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const petstore = await startFakePetstore()
    t.teardown(petstore.close)
    const env = (extra: Record<string, string>) => ({ env: { DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1', ...extra } })
    const first = await build({ teardown: () => {} }, env({}))
    const publisher = await createPublisher(first)
    const applied = await post(first, '/api/imports', publisher.headers, {
      source: { document: petstoreDocument(petstore.url) }, credential: PETSTORE_KEY, operations: [{ operationId: 'showPetById', priceMicros: 0 }]
    })
    t.equal(applied.statusCode, 201, applied.body)
    await first.close()
    const stored = async () => (await runSql(database, ['SELECT upstream_mapping, upstream_credential FROM published_bees WHERE id = \'show-pet-by-id\'']) as Array<Record<string, string>>)[0]
    const before = await stored()
    t.match(JSON.parse(before?.upstream_mapping ?? '{}'), { method: 'GET', path: '/pets/{petId}', credential: { in: 'header', name: 'X-Api-Key' } })
    t.match(before?.upstream_credential, /^enc1:/, 'the credential is sealed at rest')
    t.notOk(before?.upstream_credential?.includes(PETSTORE_KEY))

    // A start with a new SECRETS_KEY (the old one as previous) reseals it; then the old key is no longer needed.
    const newKey = Buffer.alloc(32, 0x7a).toString('base64')
    const rotated = await build({ teardown: () => {} }, env({ SECRETS_KEY: newKey, SECRETS_KEY_PREVIOUS: SECRETS_KEY }))
    await rotated.close()
    t.not((await stored())?.upstream_credential?.split(':')[1], before?.upstream_credential?.split(':')[1], 'resealed under the new key')
    const later = await build(t, env({ SECRETS_KEY: newKey }))
    const shown = await execute(later, 'show-pet-by-id', { petId: '2' })
    t.match(shown.json(), { result: { id: 2, name: 'Tom' } }, 'the Bee is served from storage alone')
    t.equal(petstore.requests.at(-1)?.headers['x-api-key'], PETSTORE_KEY)
  })
}
