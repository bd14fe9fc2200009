import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { discover, type DiscoverySort } from '../../core/discovery.js'
import { invalidCursor } from '../../core/errors.js'
import type { RegisteredBee } from '../../core/registry.js'
import { baseUrlOf } from '../base-url.js'
import { cachedText, PerBaseUrl, sendCached } from '../cached-text.js'
import { LLMS_PAGES_PATH, llmsFull, llmsIndex, llmsPage } from '../markdown/llms-index.js'
import { BAD_HOST, refusal, REQUEST_CODES } from '../refusals.js'
import { type BeeRecord, ValidationErrorBody } from '../../core/schemas.js'

const TEXT_TYPE = 'text/plain; charset=utf-8'

/** How many Bees llms.txt and llms-full.txt list by name: enough to start with, the same at any catalog size. */
export const LLMS_SELECTION = 50

/** How many Bees one page of the paged index lists. */
export const LLMS_PAGE = 200

const notModified = Type.Null({ description: 'Not modified since the ETag you sent.' })
const text = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string', description } } } })

const PageQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The cursor in the previous page\'s "Next page" link; none for the first page.' }))
})

/**
 * /llms.txt and /llms-full.txt (llmstxt.org): the registry as Markdown for language models, with links and
 * examples at the address the request came in at. Both name a bounded selection of Bees, the most reliable first,
 * and link to /llms/bees.txt, the index of every active Bee a page at a time, so that none grows with the catalog.
 */
const llmsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { registry } = fastify
  const { board } = fastify.beeHealth
  const page = (sort: DiscoverySort, limit: number, cursor?: string) =>
    discover(fastify.catalog.listing, board, fastify.catalog.search, { filter: {}, q: undefined, sort, minSuccessRate: undefined, limit, cursor })
  // The selection moves with the catalog and with the health figures: rendered once per version of both.
  const fresh = () => ({
    registry: registry.version,
    health: board.version,
    selection: undefined as Promise<BeeRecord[]> | undefined,
    /** The selected Bees loaded, for llms-full.txt's pages. */
    bees: undefined as Promise<RegisteredBee[]> | undefined,
    index: new PerBaseUrl(),
    full: new PerBaseUrl()
  })
  let rendered = fresh()
  const current = () => {
    if (rendered.registry !== registry.version || rendered.health !== board.version) rendered = fresh()
    return rendered
  }
  const selection = async () => {
    const cache = current()
    cache.selection ??= page('reliability', LLMS_SELECTION).then((found) => found?.bees ?? [])
    return await cache.selection
  }

  fastify.get('/llms.txt', {
    schema: {
      tags: ['discovery'],
      operationId: 'llms-txt',
      security: [],
      summary: 'The registry for language models (llms.txt)',
      description: `The llmstxt.org index: what Apiary is, how to call and pay, the ${LLMS_SELECTION} most reliable active Bees ` +
        '(as GET /api/bees?sort=reliability ranks them) linked to their Markdown views and OpenAPI documents with their prices, ' +
        `a link to ${LLMS_PAGES_PATH} (every active Bee, a page at a time), and links to the OpenAPI document, the MCP endpoint ` +
        'and the wallet docs. Strong ETag; 304 on If-None-Match.',
      response: { 200: text('The llms.txt index (Markdown, served as text/plain).'), 304: notModified, 400: BAD_HOST }
    }
  }, async (request, reply) => {
    const baseUrl = baseUrlOf(request)
    const chosen = await selection()
    return sendCached(request, reply, current().index.get(baseUrl, () => llmsIndex(chosen, baseUrl, LLMS_PAGE)), TEXT_TYPE)
  })

  fastify.get('/llms-full.txt', {
    schema: {
      tags: ['discovery'],
      operationId: 'llms-full-txt',
      security: [],
      summary: 'The registry for language models, the selected Bees inlined (llms-full.txt)',
      description: `llms.txt with the Markdown view of each of its ${LLMS_SELECTION} selected Bees inlined. Strong ETag; 304 on If-None-Match.`,
      response: { 200: text('llms.txt with the selected Bees\' Markdown views (Markdown, served as text/plain).'), 304: notModified, 400: BAD_HOST }
    }
  }, async (request, reply) => {
    const baseUrl = baseUrlOf(request)
    const chosen = await selection()
    const cache = current()
    cache.bees ??= Promise.all(chosen.map((record) => registry.lookup(record.id))).then((bees) => bees.filter((bee): bee is RegisteredBee => bee !== undefined))
    const bees = await cache.bees
    return sendCached(request, reply, cache.full.get(baseUrl, () => llmsFull(bees, baseUrl, LLMS_PAGE)), TEXT_TYPE)
  })

  fastify.get(LLMS_PAGES_PATH, {
    schema: {
      tags: ['discovery'],
      operationId: 'llms-bees-page',
      security: [],
      summary: 'Every active Bee for language models, a page at a time',
      description: `One page of the index llms.txt links to: up to ${LLMS_PAGE} active Bees in id order, each linked to its ` +
        'Markdown view and OpenAPI document with its price, and a link to the next page while there is one. ' +
        'Strong ETag; 304 on If-None-Match.',
      querystring: PageQuery,
      response: {
        200: text('A page of the index (Markdown, served as text/plain).'),
        304: notModified,
        400: refusal('The Host header, a parameter or the cursor is invalid.', [...REQUEST_CODES, 'HOST_INVALID', 'VALIDATION_FAILED', 'INVALID_CURSOR'],
          { body: ValidationErrorBody })
      }
    }
  }, async (request, reply) => {
    const baseUrl = baseUrlOf(request)
    const found = await page('id', LLMS_PAGE, request.query.cursor)
    if (found === null) throw invalidCursor()
    return sendCached(request, reply, cachedText(llmsPage(found.bees, found.nextCursor, baseUrl)), TEXT_TYPE)
  })
}

export default llmsRoutes
