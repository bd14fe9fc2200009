import accepts from '@fastify/accepts'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { beeNotFound, invalidCursor } from '../../core/errors.js'
import type { RegisteredBee } from '../../core/registry.js'
import { baseUrlOf } from '../base-url.js'
import { cachedText, PerBaseUrl, sendCached, type CachedText } from '../cached-text.js'
import { mountGenericExecute } from '../execute-route.js'
import { BAD_HOST, BEE_NOT_FOUND, PAGE_REFUSED } from '../refusals.js'
import { decodeCursor, encodeCursor } from '../../core/ledger/cursors.js'
import { BEE_ID_PATTERN, BeeIdParams, BeeList, BeeRecord, ref } from '../../core/schemas.js'
import { beePage } from '../markdown/bee-page.js'

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
const JSON_TYPE = 'application/json; charset=utf-8'
export const MARKDOWN_TYPE = 'text/markdown; charset=utf-8'

const notModified = Type.Null({ description: 'Not modified since the ETag you sent.' })
const markdown = (description: string) => ({ type: 'string', description })
const MARKDOWN_IN_ACCEPT = /markdown/i

/**
 * Whether the client prefers the Bee's Markdown view to its JSON. The detail route is hot, so an Accept that
 * cannot name Markdown skips negotiation; JSON, the usual answer, is never refused with 406.
 */
function wantsMarkdown (request: FastifyRequest): boolean {
  const accept = request.headers.accept
  if (accept === undefined || !MARKDOWN_IN_ACCEPT.test(accept)) return false
  // Offered with their charset, so an Accept that names one (charset=utf-8) still matches.
  return request.accepts().type([JSON_TYPE, MARKDOWN_TYPE]) === MARKDOWN_TYPE
}

/** Discovery, detail, and execution of any Bee by id. */
const beeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  await fastify.register(accepts)
  const { registry } = fastify
  // The bare discovery answer changes only with the registry: serialized once per registry version.
  let bare: { version: number, page: CachedText } | null = null
  // A record object is replaced whenever its Bee changes, so a cache keyed by it never serves stale bytes.
  const details = new WeakMap<object, CachedText>()
  const pages = new WeakMap<object, PerBaseUrl>()
  const pageOf = (bee: RegisteredBee, baseUrl: string) => {
    let perBase = pages.get(bee.record)
    if (perBase === undefined) {
      perBase = new PerBaseUrl()
      pages.set(bee.record, perBase)
    }
    return perBase.get(baseUrl, () => beePage(bee, baseUrl))
  }

  fastify.get('/bees', {
    schema: {
      tags: ['discovery'],
      operationId: 'list-bees',
      security: [],
      summary: 'List the active Bees',
      description: 'Active Bees in id order, filtered and a page at a time. Answers carry a strong ETag: send it back in ' +
        'If-None-Match to get 304 while nothing changed.',
      querystring: DiscoveryQuery,
      response: {
        200: BeeList,
        304: notModified,
        400: PAGE_REFUSED
      }
    }
  }, async (request, reply) => {
    const { limit, cursor, ...filter } = request.query
    const isBare = cursor === undefined && limit === DEFAULT_PAGE && Object.values(filter).every((value) => value === undefined)
    if (isBare && bare !== null && bare.version === registry.version) return sendCached(request, reply, bare.page, JSON_TYPE)
    const after = cursor === undefined ? undefined : decodeCursor(cursor, beeIdShape)
    if (after === null) throw invalidCursor()
    const { records, more } = registry.list({ ...filter, after }, limit)
    const last = records[records.length - 1]
    const nextCursor = more && last !== undefined ? encodeCursor(last.id) : null
    const page = cachedText(JSON.stringify({ bees: records, nextCursor }))
    if (isBare) bare = { version: registry.version, page }
    return sendCached(request, reply, page, JSON_TYPE)
  })

  fastify.get('/bees/:id', {
    schema: {
      tags: ['discovery'],
      operationId: 'get-bee',
      security: [],
      summary: 'Read one Bee',
      description: 'The full record of a Bee, with its input and output schemas, pricing and description; also for ' +
        'inactive and deprecated Bees, whose status and statusMessage say why. With Accept: text/markdown, its Markdown ' +
        'view instead (as GET /api/bees/{id}.md); JSON is the default.',
      params: BeeIdParams,
      response: {
        200: {
          description: 'The Bee.',
          content: {
            'application/json': { schema: ref(BeeRecord) },
            'text/markdown': { schema: markdown('The Bee\'s Markdown view, when Accept prefers text/markdown.') }
          }
        },
        304: notModified,
        400: BAD_HOST,
        404: BEE_NOT_FOUND
      }
    }
  }, async (request, reply) => {
    // The same URL answers in two types: caches must key on Accept too, 304s and 404s included.
    reply.header('vary', 'Accept')
    const bee = registry.get(request.params.id)
    if (bee === undefined) throw beeNotFound(request.params.id)
    if (wantsMarkdown(request)) {
      return sendCached(request, reply, pageOf(bee, baseUrlOf(request)), MARKDOWN_TYPE)
    }
    let cached = details.get(bee.record)
    if (cached === undefined) {
      cached = cachedText(JSON.stringify(bee.record))
      details.set(bee.record, cached)
    }
    return sendCached(request, reply, cached, JSON_TYPE)
  })

  fastify.get('/bees/:id.md', {
    schema: {
      tags: ['discovery'],
      operationId: 'get-bee-markdown',
      security: [],
      summary: 'Read one Bee as Markdown',
      description: 'What the Bee does, its price, its input and output as tables, and a curl and an MCP example that ' +
        'work as printed (their addresses are the ones this request came in at). Also for inactive Bees, which it ' +
        'marks as such. Rebuilt when the Bee changes; a strong ETag gives 304 on If-None-Match.',
      params: BeeIdParams,
      response: {
        200: { description: 'The Markdown view.', content: { 'text/markdown': { schema: markdown('The Bee\'s Markdown view.') } } },
        304: notModified,
        400: BAD_HOST,
        404: BEE_NOT_FOUND
      }
    }
  }, async (request, reply) => {
    const bee = registry.get(request.params.id)
    if (bee === undefined) throw beeNotFound(request.params.id)
    return sendCached(request, reply, pageOf(bee, baseUrlOf(request)), MARKDOWN_TYPE)
  })

  mountGenericExecute(fastify)
}

export default beeRoutes
