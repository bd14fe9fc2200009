import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { ErrorCode } from '../../core/error-catalog.js'
import { BeeId, ManagedBee, StringEnum } from '../../core/schemas.js'
import { callerOf } from '../caller.js'
import { bodyRefusals, PRINCIPAL_REQUIRED, refusal } from '../refusals.js'

const AnyObject = (description: string) => Type.Object({}, { additionalProperties: true, description })

const Source = Type.Union([
  Type.Object({ document: AnyObject('An OpenAPI 3.0 or 3.1 document, inline (JSON).') }, { additionalProperties: false, description: 'A document sent inline.' }),
  Type.Object({
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'https URL of an OpenAPI 3.0 or 3.1 document (JSON or YAML), fetched through the egress guard.' })
  }, { additionalProperties: false, description: 'A document Apiary fetches.' }),
  Type.Object({
    mcpServer: Type.String({ minLength: 1, maxLength: 2048, description: 'https URL of a Streamable HTTP MCP server, read through the egress guard: its tools become Bees.' })
  }, { additionalProperties: false, description: 'An MCP server.' })
], { description: 'What to import: an OpenAPI 3 or Swagger 2.0 document (inline or its URL), or an MCP server.' })

const Credential = Type.String({ minLength: 1, maxLength: 4096, description: 'The upstream\'s API key or bearer token, sent where the document\'s security scheme (or credentialHeader) says; sealed, never shown again.' })

const ImportFields = {
  source: Source,
  serverUrl: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'The server to call, instead of the document\'s first (a relative one resolves against the source URL).' })),
  idPrefix: Type.Optional(Type.String({ pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', maxLength: 30, description: 'Put before every id made from an operation or tool, e.g. `petstore`.' })),
  credential: Type.Optional(Credential),
  credentialHeader: Type.Optional(Type.String({
    pattern: '^[A-Za-z0-9!#$%&\'*+.^_`|~-]+$', maxLength: 100, description: 'MCP server: the header its API key goes in (absent: the credential is a bearer token).'
  }))
}

const PreviewBody = Type.Object(ImportFields, {
  description: 'A document to preview.',
  examples: [{ source: { url: 'https://petstore.example.com/openapi.json' }, idPrefix: 'petstore' }]
})

const ApplyBody = Type.Object({
  ...ImportFields,
  operations: Type.Array(Type.Object({
    tool: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'MCP server: the tool\'s name.' })),
    operationId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The operation\'s operationId.' })),
    method: Type.Optional(Type.String({ minLength: 1, maxLength: 10, description: 'Without an operationId: the operation\'s method, e.g. GET.' })),
    path: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Without an operationId: the operation\'s path template, e.g. /pets/{petId}.' })),
    id: Type.Optional(BeeId),
    priceMicros: Type.Integer({ minimum: 0, maximum: 1_000_000_000, description: 'Price of one call in micro-units of PRICE_CURRENCY (1,000,000 = 1); 0: free.' })
  }, { additionalProperties: false, description: 'An operation to import, by operationId or method and path (a tool by name), with its price.' }), { minItems: 1, maxItems: 100, description: 'The operations or tools to import.' }),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'The Bees\' category (default api).' }))
}, {
  description: 'Operations to publish as Bees.',
  examples: [{ source: { url: 'https://petstore.example.com/openapi.json' }, idPrefix: 'petstore', credential: 'sk_live_…', operations: [{ operationId: 'getPetById', priceMicros: 1000 }] }]
})

const Check = Type.Object({
  name: StringEnum(['id', 'server', 'parameters', 'credential', 'inputSchema', 'outputSchema'], { description: 'What was checked.' }),
  passed: Type.Boolean({ description: 'Whether it passed.' }),
  message: Type.Optional(Type.String({ description: 'Why it failed.' }))
}, { description: 'One check of an operation.' })

/** Its fields are documented in docs/publishers.md: listed in full, they took 1.4 KB of the service's document. */
const Mapping = AnyObject('How a call becomes the upstream\'s request: method, serverUrl, path, parameters (name and place: path, query, header or body), body, output and credential place.')

const Candidate = Type.Object({
  id: Type.String({ description: 'The Bee\'s id.' }),
  name: Type.String({ description: 'The Bee\'s name (the operation\'s summary).' }),
  description: Type.String({ description: 'The Bee\'s description.' }),
  operationId: Type.Union([Type.String(), Type.Null()], { description: 'The operation\'s operationId, if it has one.' }),
  method: Type.Optional(Type.String({ description: 'The operation\'s method.' })),
  path: Type.Optional(Type.String({ description: 'The operation\'s path template.' })),
  tool: Type.Optional(Type.String({ description: 'The MCP tool\'s name.' })),
  inputSchema: AnyObject('The path, query, header and body parameters merged (a tool\'s inputSchema), as the Bee\'s input.'),
  outputSchema: AnyObject('The 2xx JSON response (a tool\'s outputSchema, or its content), as the Bee\'s result.'),
  mapping: Mapping,
  checks: Type.Array(Check, { description: 'What it passes or fails; only an operation passing all can be imported.' }),
  importable: Type.Boolean({ description: 'Whether every check passed.' })
}, { description: 'A Bee an operation or tool would become.' })

const IMPORT_CODES: ErrorCode[] = ['VALIDATION_FAILED', 'IMPORT_SOURCE_FORBIDDEN', 'IMPORT_SOURCE_UNREADABLE', 'IMPORT_DOCUMENT_INVALID']

/** Publishers (and the operator, to preview) turn an OpenAPI document's operations into Bees. */
const importRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { imports, mcpImports } = fastify

  fastify.post('/imports/preview', {
    schema: {
      tags: ['publishing'],
      operationId: 'preview-import',
      summary: 'Preview an OpenAPI or MCP import',
      description: 'The Bees an OpenAPI 3.0 or 3.1 document\'s operations (or an MCP server\'s tools) would become, with the checks each passes. Nothing is published.',
      security: [{ publisherKey: [] }, { adminToken: [] }],
      body: PreviewBody,
      response: {
        200: Type.Object({ operations: Type.Array(Candidate, { description: 'One per operation of the document.' }) }, { description: 'The preview.' }),
        ...bodyRefusals('The body does not match its schema, or the document cannot be read or is not OpenAPI 3.0 or 3.1.', IMPORT_CODES),
        401: PRINCIPAL_REQUIRED
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request) => {
    const { source, ...fields } = request.body
    if (!('mcpServer' in source)) return { operations: await imports.preview(callerOf(request), { ...fields, source }) }
    const tools = await mcpImports.tools.preview(callerOf(request), { ...fields, serverUrl: source.mcpServer })
    return { operations: tools.map((tool) => ({ operationId: null, ...tool })) }
  })

  fastify.post('/imports', {
    schema: {
      tags: ['publishing'],
      operationId: 'apply-import',
      summary: 'Import OpenAPI operations or MCP tools as Bees',
      description: 'Publishes the chosen operations or tools as your Bees, each at its price; their calls are the upstream\'s own requests (a tool\'s tools/call).',
      security: [{ publisherKey: [] }],
      body: ApplyBody,
      response: {
        201: Type.Object({ bees: Type.Array(ManagedBee, { description: 'The Bees published, in the order chosen.' }) }, { description: 'Published.' }),
        ...bodyRefusals('The body does not match its schema, the document cannot be read, or a chosen operation is unknown or fails a check.',
          [...IMPORT_CODES, 'IMPORT_OPERATION_UNKNOWN', 'IMPORT_OPERATION_REFUSED', 'INVALID_AMOUNT', 'INVALID_PRICE', 'INVALID_SCHEMA', 'ENDPOINT_FORBIDDEN']),
        401: PRINCIPAL_REQUIRED,
        403: refusal('Only publishers import: the admin token cannot.', ['PUBLISHER_REQUIRED']),
        409: refusal('An id is taken or reserved, or you have as many Bees as a publisher may have.', ['BEE_ID_TAKEN', 'BEE_ID_RESERVED', 'PUBLISHER_BEE_LIMIT']),
        413: refusal('The body is larger than BODY_LIMIT_BYTES, or a Bee\'s name, description and schemas would make its OpenAPI document larger than a Bee may.',
          ['PAYLOAD_TOO_LARGE', 'BEE_DOCUMENT_TOO_LARGE'])
      }
    },
    onRequest: fastify.requirePrincipal
  }, async (request, reply) => {
    const { source, operations, ...fields } = request.body
    const bees = 'mcpServer' in source
      ? await mcpImports.tools.apply(callerOf(request), { ...fields, serverUrl: source.mcpServer, tools: operations })
      : await imports.apply(callerOf(request), { ...fields, source, operations })
    return await reply.code(201).send({ bees })
  })
}

export default importRoutes
