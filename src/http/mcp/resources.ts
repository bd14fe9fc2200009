import {
  ProtocolError, ProtocolErrorCode, ResourceNotFoundError,
  type ListResourcesResult, type ListResourceTemplatesResult, type ReadResourceResult, type Resource
} from '@modelcontextprotocol/server'
import { discover } from '../../core/discovery.js'
import { ApiError, bodyOf } from '../../core/errors.js'
import type { HealthBoard } from '../../core/health/board.js'
import type { CatalogListing } from '../../core/catalog-listing.js'
import type { Registry } from '../../core/registry.js'
import type { BeeRecord } from '../../core/schemas.js'
import type { CatalogSearch } from '../../core/search.js'
import { beePage } from '../markdown/bee-page.js'
import { llmsIndex } from '../markdown/llms-index.js'
import { LLMS_PAGE, LLMS_SELECTION } from '../routes/llms.js'
import { catalogPage } from './catalog.js'

/** llms.txt, the registry for a language model to read first. */
export const LLMS_URI = 'apiary://llms.txt'
const BEE_PREFIX = 'apiary://bees/'
/** A Bee's Markdown page (RFC 6570 level 1: the id is a Bee id, which needs no escaping). */
export const BEE_TEMPLATE = `${BEE_PREFIX}{id}`
const MARKDOWN = 'text/markdown'

/** Resources per page, as tools/list pages. */
const PAGE_SIZE = 50

const llmsResource: Resource = {
  uri: LLMS_URI,
  name: 'llms.txt',
  title: 'Apiary for language models',
  description: 'What Apiary is, how to call and pay for a Bee, and the most reliable Bees with their prices (llmstxt.org).',
  mimeType: MARKDOWN
}

function beeResource (record: BeeRecord): Resource {
  return { uri: `${BEE_PREFIX}${record.id}`, name: record.id, title: record.name, description: record.description, mimeType: MARKDOWN }
}

/**
 * One resources/list page: llms.txt first, then the active Bees' pages in id order, paged with the
 * catalog's cursor, read from the catalog at the time of the call.
 */
export async function listResources (
  listing: CatalogListing, board: HealthBoard, search: CatalogSearch, cursor: string | undefined
): Promise<ListResourcesResult> {
  const page = await catalogPage(listing, board, search, cursor, PAGE_SIZE)
  return {
    resources: [...(cursor === undefined ? [llmsResource] : []), ...page.bees.map(beeResource)],
    ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor })
  }
}

export const resourceTemplates: ListResourceTemplatesResult = {
  resourceTemplates: [{
    uriTemplate: BEE_TEMPLATE,
    name: 'bee',
    title: 'A Bee\'s page',
    description: 'The Markdown page of the Bee with this id (find_bees finds ids): what it does, its price, its input and ' +
      'output fields, and a curl and an MCP example that work as printed.',
    mimeType: MARKDOWN
  }]
}

/**
 * The text of a resource: llms.txt, or a Bee's page (any Bee in the registry, as GET /api/bees/{id}.md
 * serves it: an inactive one says so). Links in them point at `baseUrl()`, the address the request
 * came in at, which is read only here: a Host it refuses is refused for this method only.
 */
export async function readResource (
  registry: Registry, listing: CatalogListing, board: HealthBoard, search: CatalogSearch, uri: string, baseUrl: () => string
): Promise<ReadResourceResult> {
  const bee = uri.startsWith(BEE_PREFIX) ? await registry.lookup(uri.slice(BEE_PREFIX.length)) : undefined
  if (uri !== LLMS_URI && bee === undefined) throw new ResourceNotFoundError(uri, `No resource has the URI "${uri.slice(0, 200)}".`)
  let base: string
  try {
    base = baseUrl()
  } catch (error) {
    if (error instanceof ApiError) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, error.message, bodyOf(error))
    throw error
  }
  // llms.txt names the most reliable Bees, as GET /llms.txt does.
  const selection = async () => (await discover(listing, board, search, { filter: {}, q: undefined, sort: 'reliability', minSuccessRate: undefined, limit: LLMS_SELECTION, cursor: undefined }))?.bees ?? []
  const text = bee === undefined ? llmsIndex(await selection(), base, LLMS_PAGE) : beePage(bee, base)
  return { contents: [{ uri, mimeType: MARKDOWN, text }] }
}
