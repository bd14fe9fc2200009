import accepts from '@fastify/accepts'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { discover } from '../../core/discovery.js'
import { beeDocumentPath } from '../../core/publishing/openapi-paths.js'
import { SEARCH_LIMIT } from '../../core/search.js'
import { beeNotFound, invalidCursor } from '../../core/errors.js'
import type { RegisteredBee } from '../../core/registry.js'
import { afterStep } from '../../core/stepped.js'
import { baseUrlOf } from '../base-url.js'
import { cachedText, PerBaseUrl, sendCached, type CachedText } from '../cached-text.js'
import { DiscoveryAnswers } from '../discovery-answers.js'
import { mountGenericExecute } from '../execute/routes.js'
import { BAD_HOST, BEE_NOT_FOUND, PAGE_REFUSED } from '../refusals.js'
import { BeeIdParams, BeeList, BeeRecord, ref, StringEnum, type BeeHealth } from '../../core/schemas.js'
import { beePage } from '../markdown/bee-page.js'

export const DEFAULT_PAGE = 100

const DiscoveryQuery = Type.Object({
  category: Type.Optional(Type.String({ description: 'Only Bees of this category, e.g. reasoning.' })),
  colony: Type.Optional(Type.String({ description: 'Only Bees of this colony, e.g. core.' })),
  ownerId: Type.Optional(Type.String({ description: 'Only Bees of this owner (a publisher id).' })),
  pricing: Type.Optional(Type.String({ enum: ['free', 'pay-per-use', 'subscription'], description: 'Only Bees with this pricing type.' })),
  q: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Words to search for in the id, name, category, colony and description, in any order and any case, each as itself or another form ' +
      `of it ("summarizes" finds "summarizer"): the Bees with every word, or when none has them all, those with any. The best matches come first unless another sort is asked; the ${SEARCH_LIMIT} best are listed.`
  })),
  minSuccessRate: Type.Optional(Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'Only Bees whose health.successRate is at least this, 0 to 1; Bees without runs in the health window have none and are left out.'
  })),
  sort: Type.Optional(StringEnum(['id', 'reliability', 'relevance'], {
    description: 'relevance (the default with q): the best match for q first (id order without q). id (the default without q): in id order. ' +
      'reliability: the highest health.successRate first, then the lowest health.p95Ms; Bees without runs in the health window last. ' +
      'A ranked page\'s cursor is an offset into the ranking, which moves as the figures do.'
  })),
  limit: Type.Integer({ minimum: 1, maximum: 500, default: DEFAULT_PAGE, description: `Most Bees in one page (default ${DEFAULT_PAGE}).` }),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the previous page.' }))
})

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

function pageSent (request: FastifyRequest, reply: FastifyReply, page: CachedText | null): Buffer | null {
  if (page === null) throw invalidCursor()
  return sendCached(request, reply, page, JSON_TYPE)
}

/** Discovery, detail, and execution of any Bee by id. */
const beeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  await fastify.register(accepts)
  const { registry } = fastify
  const { board } = fastify.beeHealth
  // Discovery answers change only with the registry and the health figures: each is read and serialized once per version of both.
  const answers = new DiscoveryAnswers()
  const versions = () => `${registry.version}:${board.version}`
  let bareQueryKey: string | undefined
  // A record object is replaced whenever its Bee changes, and a Bee's figures whenever they change, so a cache keyed by
  // the record and checked against the figures never serves stale bytes.
  const details = new WeakMap<object, { health: BeeHealth, detail: CachedText }>()
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
      description: 'Active Bees with their health, in id order or ranked by reliability, filtered and a page at a time. Answers ' +
        'carry a strong ETag: send it back in If-None-Match to get 304 while nothing changed.',
      querystring: DiscoveryQuery,
      response: {
        200: BeeList,
        304: notModified,
        400: PAGE_REFUSED
      }
    }
  }, (request, reply) => {
    const { limit, cursor, sort, minSuccessRate, q, category, colony, ownerId, pricing } = request.query
    const query = { filter: { category, colony, ownerId, pricing }, q, sort: sort ?? (q === undefined ? 'id' : 'relevance'), minSuccessRate, limit, cursor } as const
    // Without a query string the query is its defaults, the same every time: its key is written once.
    const key = request.url.includes('?') ? JSON.stringify(query) : (bareQueryKey ??= JSON.stringify(query))
    const page = answers.get(key, versions, async () => {
      const found = await discover(fastify.catalog.listing, board, fastify.catalog.search, query)
      return found === null ? null : cachedText(JSON.stringify(found))
    })
    // A kept page is sent at once (no promise for Fastify to wait on); a page read from the catalog when it is ready.
    return afterStep(page, (read) => pageSent(request, reply, read))
  })

  fastify.get('/bees/:id', {
    schema: {
      tags: ['discovery'],
      operationId: 'get-bee',
      security: [],
      summary: 'Read one Bee',
      description: 'The full record of a Bee, with its input and output schemas, pricing, description and health; also for ' +
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
  }, (request, reply) => {
    // The same URL answers in two types: caches must key on Accept too, 304s and 404s included.
    reply.header('vary', 'Accept')
    const { id } = request.params
    const found = registry.lookup(id)
    // A built-in or remembered Bee is answered at once, with no promise for Fastify to wait on.
    return afterStep(found, (bee) => detailSent(request, reply, id, bee))
  })

  function detailSent (request: FastifyRequest, reply: FastifyReply, id: string, bee: RegisteredBee | undefined): Buffer | null {
    if (bee === undefined) throw beeNotFound(id)
    if (wantsMarkdown(request)) {
      return sendCached(request, reply, pageOf(bee, baseUrlOf(request)), MARKDOWN_TYPE)
    }
    const health = board.of(bee.record.id)
    let cached = details.get(bee.record)
    if (cached?.health !== health) {
      cached = { health, detail: cachedText(JSON.stringify({ ...bee.record, openapi: beeDocumentPath(bee.record.id), health })) }
      details.set(bee.record, cached)
    }
    return sendCached(request, reply, cached.detail, JSON_TYPE)
  }

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
    const found = registry.lookup(request.params.id)
    const bee = found instanceof Promise ? await found : found
    if (bee === undefined) throw beeNotFound(request.params.id)
    return sendCached(request, reply, pageOf(bee, baseUrlOf(request)), MARKDOWN_TYPE)
  })

  mountGenericExecute(fastify)
}

export default beeRoutes
