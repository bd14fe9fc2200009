import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError, beeNotFound } from '../../core/errors.js'
import { allVersions, pinnedVersion } from '../../core/pinned-version.js'
import { beeDocumentPath } from '../../core/publishing/openapi-paths.js'
import type { RegisteredBee, Registry } from '../../core/registry.js'
import { BeeIdParams, BeeRecord } from '../../core/schemas.js'
import { sendCached } from '../cached-text.js'
import { BEE_NOT_FOUND, NO_HOST, refusal, requestRefusal } from '../refusals.js'

const OpenApiDocument = Type.Object({
  openapi: Type.String({ description: 'The OpenAPI version: 3.0.3.' }),
  info: Type.Object({}, { additionalProperties: true, description: 'The Bee\'s name and description; version is when its record last changed.' }),
  paths: Type.Object({}, { additionalProperties: true, description: 'One path: the Bee\'s execute call, POST /api/bees/{its id}/execute.' })
}, { additionalProperties: true, description: 'A complete OpenAPI 3.0.3 document for one Bee\'s execute call.' })

const VersionQuery = Type.Object({
  version: Type.Optional(Type.String({
    maxLength: 50,
    description: 'The version whose document to read, as Bee-Version pins it: 1, 1.2 or 1.2.3 (the highest matching). Absent: the latest.'
  }))
})

const BeeVersion = Type.Object({
  version: Type.String({ description: 'The semantic version.' }),
  status: BeeRecord.properties.status,
  sunsetAt: Type.Unsafe<string | null>({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When a deprecated version stops being served (ISO 8601): an older major, VERSION_SUNSET_DAYS after a new major replaced it.'
  }),
  inputSchema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of the execute body in this version.' }),
  outputSchema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of Honey.result in this version.' }),
  openapi: Type.String({ description: 'The path of this version\'s own OpenAPI 3.0 document on this service.' })
}, { description: 'One version of a Bee.' })

const BeeVersions = Type.Object({
  id: Type.String({ description: 'Identifier of the Bee.' }),
  versions: Type.Array(BeeVersion, { description: 'Every version callers can pin, the latest (what an unpinned call gets) first.' })
}, { description: 'A Bee\'s versions.' })

/** The Bee, in the version asked for (the latest without one); an unknown Bee or version is its 404. */
async function beeIn (registry: Registry, id: string, version: string | undefined): Promise<RegisteredBee> {
  const bee = await registry.lookup(id)
  if (bee === undefined) throw beeNotFound(id)
  if (version === undefined) return bee
  const pinned = await pinnedVersion(bee, version)
  if (pinned instanceof ApiError) throw pinned
  return pinned
}

const NOT_FOUND = refusal('No Bee has this id, or none of its versions matches the version asked for.', ['BEE_NOT_FOUND', 'BEE_VERSION_NOT_FOUND'])

/**
 * GET /api/bees/{id}/openapi.json: one Bee's typed execute operation as a document of its own, so that the
 * service's document stays the same size whatever the catalog holds, and a client generator still makes a
 * typed call for any one Bee.
 */
const beeOpenApiRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { registry, openapiDocuments } = fastify

  fastify.get('/bees/:id/openapi.json', {
    schema: {
      tags: ['discovery'],
      operationId: 'get-bee-openapi',
      security: [],
      summary: 'Read one Bee\'s OpenAPI document',
      description: 'A complete OpenAPI 3.0.3 document with one operation, the Bee\'s execute call, with its exact input ' +
        'and output schemas, its error codes, the wallet header when it is paid, and a body example that works as ' +
        'printed. Feed it to a client generator for a typed call to this Bee. Also for inactive and deprecated Bees. ' +
        'Rebuilt when the Bee changes; a strong ETag gives 304 on If-None-Match. ?version= reads an earlier version\'s.',
      params: BeeIdParams,
      querystring: VersionQuery,
      response: {
        200: OpenApiDocument,
        304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
        400: requestRefusal('The request has no Host header, or version is not 1, 1.2 or 1.2.3.', ['INVALID_VERSION']),
        404: NOT_FOUND
      }
    }
  }, async (request, reply) => {
    const bee = await beeIn(registry, request.params.id, request.query.version)
    return sendCached(request, reply, openapiDocuments.bee(bee), 'application/json; charset=utf-8')
  })

  fastify.get('/bees/:id/versions', {
    schema: {
      tags: ['discovery'],
      operationId: 'list-bee-versions',
      security: [],
      summary: 'List one Bee\'s versions',
      description: 'Every version of the Bee that a call can pin with Bee-Version, the latest first, each with its schemas ' +
        'and its own OpenAPI document. A version never changes: a change of schema or endpoint makes a new one.',
      params: BeeIdParams,
      response: {
        200: BeeVersions,
        400: NO_HOST,
        404: BEE_NOT_FOUND
      }
    }
  }, async (request) => {
    const bee = await registry.lookup(request.params.id)
    if (bee === undefined) throw beeNotFound(request.params.id)
    const { id } = bee.record
    return {
      id,
      versions: (await allVersions(bee)).map(({ record: { version, status, sunsetAt, inputSchema, outputSchema } }, i) =>
        ({ version, status, sunsetAt, inputSchema, outputSchema, openapi: i === 0 ? beeDocumentPath(id) : `${beeDocumentPath(id)}?version=${version}` }))
    }
  })
}

export default beeOpenApiRoutes
