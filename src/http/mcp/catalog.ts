import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { discover } from '../../core/discovery.js'
import type { HealthBoard } from '../../core/health/board.js'
import type { RegisteredBee, Registry } from '../../core/registry.js'
import type { CatalogSearch } from '../../core/search.js'

/**
 * One page of the catalog, the active Bees in id order after `cursor`, paged as GET /api/bees pages
 * it (its cursor, its walk: each Bee present throughout is listed once).
 */
export async function catalogPage (registry: Registry, board: HealthBoard, search: CatalogSearch, cursor: string | undefined, limit: number) {
  const page = await discover(registry, board, search, { filter: {}, q: undefined, sort: 'id', minSuccessRate: undefined, limit, cursor })
  if (page === null) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'cursor must be the nextCursor of a previous page of this list.', { code: 'INVALID_CURSOR' })
  }
  const bees = page.bees.map(({ id }) => registry.get(id)).filter((bee): bee is RegisteredBee => bee !== undefined)
  return { bees, nextCursor: page.nextCursor ?? undefined }
}
