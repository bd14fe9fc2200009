import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

export const PETSTORE_KEY = 'pk_live_secret_0123456789'

export interface FakePetstore {
  url: string
  /** Every request received: method, URL (path and query), headers and body. */
  requests: Array<{ method: string, url: string, headers: IncomingHttpHeaders, body: string }>
  /** Answer every request with this status (500, say) instead of the pets. */
  failWith: number | null
  /** Served at GET /openapi.json, without a key; a string as YAML. */
  document: object | string | null
  close (): Promise<void>
}

const pets = [{ id: 1, name: 'Rex', tag: 'dog' }, { id: 2, name: 'Tom', tag: 'cat' }]

/** A petstore-like API on 127.0.0.1 that wants its API key in `X-Api-Key`. */
export async function startFakePetstore (): Promise<FakePetstore> {
  const fake: FakePetstore = { url: '', requests: [], failWith: null, document: null, close: async () => {} }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      fake.requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body })
      const send = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
      }
      if (request.url === '/openapi.json' && typeof fake.document === 'string') return response.writeHead(200, { 'content-type': 'application/yaml' }).end(fake.document)
      if (request.url === '/openapi.json' && fake.document !== null) return send(200, fake.document)
      if (fake.failWith !== null) return send(fake.failWith, { message: 'broken' })
      if (request.headers['x-api-key'] !== PETSTORE_KEY) return send(401, { message: 'no key' })
      const url = new URL(request.url ?? '/', 'http://petstore')
      const byId = /^\/v1\/pets\/([^/]+)$/.exec(url.pathname)
      if (request.method === 'GET' && url.pathname === '/v1/pets') {
        return send(200, pets.filter((pet) => !url.searchParams.has('tag') || url.searchParams.getAll('tag').includes(pet.tag)).slice(0, Number(url.searchParams.get('limit') ?? 10)))
      }
      if (request.method === 'GET' && byId !== null) {
        const pet = pets.find((candidate) => String(candidate.id) === decodeURIComponent(byId[1] ?? ''))
        return pet === undefined ? send(404, { message: 'no pet' }) : send(200, { ...pet, traceId: request.headers['x-trace-id'] ?? null })
      }
      if (request.method === 'POST' && url.pathname === '/v1/pets') return send(201, { id: 3, ...JSON.parse(body) })
      send(404, { message: 'not found' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return fake
}

const Pet30 = {
  type: 'object',
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string', nullable: true }, traceId: { type: 'string', nullable: true } }
}

/** The petstore described in OpenAPI 3.0 (or, with `version: '3.1'`, in 3.1), with $refs the parser resolves. */
export function petstoreDocument (serverUrl: string, version: '3.0' | '3.1' = '3.0') {
  const pet = version === '3.0'
    ? structuredClone(Pet30)
    : { ...Pet30, properties: { ...Pet30.properties, tag: { type: ['string', 'null'] }, traceId: { type: ['string', 'null'] } } }
  return {
    openapi: version === '3.0' ? '3.0.3' : '3.1.0',
    info: { title: 'Petstore', version: '1.0.0' },
    servers: [{ url: `${serverUrl}/{base}`, variables: { base: { default: 'v1' } } }],
    security: [{ apiKey: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List pets',
          parameters: [
            { name: 'limit', in: 'query', description: 'How many at most.', schema: { type: 'integer', minimum: 1, maximum: 100 } },
            { name: 'tag', in: 'query', schema: { type: 'array', items: { type: 'string' } } }
          ],
          responses: { 200: { description: 'Pets.', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } } } } } }
        },
        post: {
          operationId: 'createPet',
          summary: 'Add a pet',
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPet' } } } },
          responses: { 201: { description: 'Created.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } } }
        }
      },
      '/pets/{petId}': {
        parameters: [{ $ref: '#/components/parameters/PetId' }],
        get: {
          operationId: 'showPetById',
          summary: 'Info for a pet',
          parameters: [{ name: 'X-Trace-Id', in: 'header', schema: { type: 'string' } }],
          responses: {
            200: { description: 'The pet.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
            default: { description: 'Error.', content: { 'application/json': { schema: { type: 'object' } } } }
          }
        }
      }
    },
    components: {
      parameters: { PetId: { name: 'petId', in: 'path', required: true, description: 'The pet\'s id.', schema: { type: 'string' } } },
      schemas: {
        Pet: pet,
        NewPet: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, tag: { type: 'string' } } }
      },
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } }
    }
  }
}

/** The same petstore described in Swagger 2.0: host, basePath, a body parameter, definitions. */
export function petstoreSwagger2 (serverUrl: string) {
  const pet = { $ref: '#/definitions/Pet' }
  return {
    swagger: '2.0',
    info: { title: 'Petstore', version: '1.0.0' },
    host: new URL(serverUrl).host,
    basePath: '/v1',
    schemes: ['http'],
    consumes: ['application/json'],
    produces: ['application/json'],
    securityDefinitions: { apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' } },
    security: [{ apiKey: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List pets',
          parameters: [
            { name: 'limit', in: 'query', description: 'How many at most.', type: 'integer', minimum: 1, maximum: 100 },
            { name: 'tag', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'multi' }
          ],
          responses: { 200: { description: 'Pets.', schema: { type: 'array', items: pet } } }
        },
        post: {
          operationId: 'createPet',
          summary: 'Add a pet',
          parameters: [{ name: 'pet', in: 'body', required: true, schema: { $ref: '#/definitions/NewPet' } }],
          responses: { 201: { description: 'Created.', schema: pet } }
        }
      },
      '/pets/{petId}': {
        parameters: [{ name: 'petId', in: 'path', required: true, description: 'The pet\'s id.', type: 'string' }],
        get: {
          operationId: 'showPetById',
          summary: 'Info for a pet',
          parameters: [{ name: 'X-Trace-Id', in: 'header', type: 'string' }],
          responses: { 200: { description: 'The pet.', schema: pet } }
        }
      }
    },
    definitions: {
      Pet: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: { type: 'integer' }, name: { type: 'string' }, tag: { type: 'string', 'x-nullable': true }, traceId: { type: 'string', 'x-nullable': true } }
      },
      NewPet: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 }, tag: { type: 'string' } } }
    }
  }
}
