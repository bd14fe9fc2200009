import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { discover } from '../../core/discovery.js'
import type { ErrorCode } from '../../core/error-catalog.js'
import type { HealthBoard } from '../../core/health/board.js'
import type { CatalogListing } from '../../core/catalog-listing.js'
import type { CatalogSearch } from '../../core/search.js'

/**
 * One page of the catalog, the active Bees in id order after `cursor`, paged as GET /api/bees pages
 * it (its cursor, its walk: each Bee present throughout is listed once).
 */
export async function catalogPage (listing: CatalogListing, board: HealthBoard, search: CatalogSearch, cursor: string | undefined, limit: number) {
  const page = await discover(listing, board, search, { filter: {}, q: undefined, sort: 'id', minSuccessRate: undefined, limit, cursor })
  if (page === null) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'cursor must be the nextCursor of a previous page of this list.', { code: 'INVALID_CURSOR' satisfies ErrorCode })
  }
  return { bees: page.bees, nextCursor: page.nextCursor ?? undefined }
}
