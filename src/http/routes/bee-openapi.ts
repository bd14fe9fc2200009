import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { beeNotFound } from '../../core/errors.js'
import { BeeIdParams } from '../../core/schemas.js'
import { sendCached } from '../cached-text.js'
import { BEE_NOT_FOUND, NO_HOST } from '../refusals.js'

const OpenApiDocument = Type.Object({
  openapi: Type.String({ description: 'The OpenAPI version: 3.0.3.' }),
  info: Type.Object({}, { additionalProperties: true, description: 'The Bee\'s name and description; version is when its record last changed.' }),
  paths: Type.Object({}, { additionalProperties: true, description: 'One path: the Bee\'s execute call, POST /api/bees/{its id}/execute.' })
}, { additionalProperties: true, description: 'A complete OpenAPI 3.0.3 document for one Bee\'s execute call.' })

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
        'Rebuilt when the Bee changes; a strong ETag gives 304 on If-None-Match.',
      params: BeeIdParams,
      response: {
        200: OpenApiDocument,
        304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
        400: NO_HOST,
        404: BEE_NOT_FOUND
      }
    }
  }, async (request, reply) => {
    const bee = await registry.lookup(request.params.id)
    if (bee === undefined) throw beeNotFound(request.params.id)
    return sendCached(request, reply, openapiDocuments.bee(bee), 'application/json; charset=utf-8')
  })
}

export default beeOpenApiRoutes
