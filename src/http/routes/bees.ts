import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { beeNotFound, invalidCursor } from '../../core/errors.js'
import { cachedJson, sendCachedJson, type CachedJson } from '../cached-json.js'
import { mountGenericExecute } from '../execute-route.js'
import { decodeCursor, encodeCursor } from '../../core/ledger/cursors.js'
import { BEE_ID_PATTERN, BeeIdParams, BeeList, BeeRecord, ErrorBody, ValidationErrorBody } from '../../core/schemas.js'

export const DEFAULT_PAGE = 100

const DiscoveryQuery = Type.Object({
  category: Type.Optional(Type.String({ description: 'Only Bees of this category, e.g. reasoning.' })),
  colony: Type.Optional(Type.String({ description: 'Only Bees of this colony, e.g. core.' })),
  ownerId: Type.Optional(Type.String({ description: 'Only Bees of this owner (a publisher id).' })),
  pricing: Type.Optional(Type.String({ enum: ['free', 'pay-per-use', 'subscription'], description: 'Only Bees with this pricing type.' })),
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Text to find in the id, name or description (case-insensitive).' })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: DEFAULT_PAGE, description: `Most Bees in one page (default ${DEFAULT_PAGE}).` }),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the previous page.' }))
})

const beeIdShape = new RegExp(BEE_ID_PATTERN)
const CACHE_CONTROL = 'public, max-age=5'

/** Discovery, detail, and execution of any Bee by id. */
const beeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { registry } = fastify
  // The bare discovery answer changes only with the registry: serialized once per registry version.
  let bare: { version: number, answer: CachedJson } | null = null
  // A record object is replaced whenever its Bee changes, so a cache keyed by it never serves stale bytes.
  const details = new WeakMap<object, CachedJson>()

  fastify.get('/bees', {
    schema: {
      tags: ['discovery'],
      operationId: 'list-bees',
      summary: 'List the active Bees',
      description: 'Active Bees in id order, filtered and a page at a time. Answers carry a strong ETag: send it back in ' +
        'If-None-Match to get 304 while nothing changed.',
      querystring: DiscoveryQuery,
      response: {
        200: BeeList,
        304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
        400: ValidationErrorBody
      }
    }
  }, async (request, reply) => {
    const { limit, cursor, ...filter } = request.query
    const isBare = cursor === undefined && limit === DEFAULT_PAGE && Object.values(filter).every((value) => value === undefined)
    if (isBare && bare !== null && bare.version === registry.version) return sendCachedJson(request, reply, bare.answer, CACHE_CONTROL)
    const after = cursor === undefined ? undefined : decodeCursor(cursor, beeIdShape)
    if (after === null) throw invalidCursor()
    const { records, more } = registry.list({ ...filter, after }, limit)
    const last = records[records.length - 1]
    const nextCursor = more && last !== undefined ? encodeCursor(last.id) : null
    const answer = cachedJson(JSON.stringify({ bees: records, nextCursor }))
    if (isBare) bare = { version: registry.version, answer }
    return sendCachedJson(request, reply, answer, CACHE_CONTROL)
  })

  fastify.get('/bees/:id', {
    schema: {
      tags: ['discovery'],
      operationId: 'get-bee',
      summary: 'Read one Bee',
      description: 'The full record of a Bee, with its input and output schemas, pricing and description; also for ' +
        'inactive and deprecated Bees, whose status and statusMessage say why.',
      params: BeeIdParams,
      response: {
        200: BeeRecord,
        304: Type.Null({ description: 'Not modified since the ETag you sent.' }),
        404: { ...ErrorBody, description: 'No Bee has this id.' }
      }
    }
  }, async (request, reply) => {
    const bee = registry.get(request.params.id)
    if (bee === undefined) throw beeNotFound(request.params.id)
    let cached = details.get(bee.record)
    if (cached === undefined) {
      cached = cachedJson(JSON.stringify(bee.record))
      details.set(bee.record, cached)
    }
    return sendCachedJson(request, reply, cached, CACHE_CONTROL)
  })

  mountGenericExecute(fastify)
}

export default beeRoutes
