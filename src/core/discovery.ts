import type { HealthBoard } from './health/board.js'
import { byReliability, meetsSuccessRate } from './health/reliability.js'
import { decodeCursor, encodeCursor } from './ledger/cursors.js'
import type { CatalogListing } from './catalog-listing.js'
import type { CatalogFilter } from './ledger/catalog/catalog-repository.js'
import { BEE_ID_SHAPE, type BeeRecord } from './schemas.js'
import type { CatalogSearch } from './search.js'

export type DiscoverySort = 'id' | 'reliability' | 'relevance'

export interface Discovery {
  filter: Omit<CatalogFilter, 'after' | 'ids'>
  /** Words to search for (see catalogSearch): only the Bees matching them. */
  q: string | undefined
  sort: DiscoverySort
  /** Only Bees with a success rate at least this (so only Bees with runs in the window). */
  minSuccessRate: number | undefined
  limit: number
  cursor: string | undefined
}

/** A page of discovery: records with their health. */
export interface DiscoveryPage {
  bees: BeeRecord[]
  nextCursor: string | null
}

// A ranked page's cursor is its offset; the colon keeps it from ever reading as a Bee id, and an id as one.
const RANK_PREFIX = 'rank:'
const rankShape = /^rank:[1-9][0-9]{0,8}$/

function offsetOf (cursor: string | undefined): number | null {
  if (cursor === undefined) return 0
  const key = decodeCursor(cursor, rankShape)
  return key === null ? null : Number(key.slice(RANK_PREFIX.length))
}

/** A ranked page: the ids in ranking order are cut at the cursor's offset, and only the page's records are read. */
async function rankedPage (listing: CatalogListing, ranked: string[], board: HealthBoard, offset: number, limit: number): Promise<DiscoveryPage> {
  const end = offset + limit
  const records = await listing.records(ranked.slice(offset, end))
  return {
    bees: records.map((record) => ({ ...record, health: board.of(record.id) })),
    nextCursor: end < ranked.length ? encodeCursor(`${RANK_PREFIX}${end}`) : null
  }
}

const byHealth = (board: HealthBoard) => (a: string, b: string) => byReliability(board.of(a), board.of(b))

/**
 * The reliability ranking: the Bees with a success rate (the health board's, bounded by use) by reliability,
 * then every other active Bee in id order, whose ids are read only as deep as the page goes.
 */
async function reliabilityRanking (listing: CatalogListing, board: HealthBoard, filter: CatalogFilter, end: number): Promise<string[]> {
  const rated = board.rated()
  // Stable: equals keep id order.
  const ranked = (await listing.ids({ ...filter, ids: rated }, rated.length)).sort(byHealth(board))
  const wanted = end + 1 - ranked.length
  if (wanted <= 0) return ranked
  const rankedIds = new Set(ranked)
  return [...ranked, ...(await listing.ids(filter, wanted + ranked.length)).filter((id) => !rankedIds.has(id))]
}

/**
 * Discovery: the active Bees matching a query, each with its health, a page at a time; null when the cursor is not
 * one of this sort's. In id order, a cursor is the last id (a walk lists each Bee present throughout once);
 * ranked by relevance to `q` or by reliability, it is the offset into the ranking of the moment, which moves as
 * figures do. With `q`, only the Bees the catalog's search finds, best match first unless another order is asked.
 * The catalog is read a page at a time; only the search's hits, or the Bees with health figures, are read whole.
 */
export async function discover (listing: CatalogListing, board: HealthBoard, search: CatalogSearch, query: Discovery): Promise<DiscoveryPage | null> {
  const { minSuccessRate, limit, cursor, filter } = query
  const relevance = query.q === undefined ? undefined : await search(query.q)
  const rated = minSuccessRate === undefined ? undefined : board.rated().filter((id) => meetsSuccessRate(board.of(id), minSuccessRate))
  const ids = relevance === undefined ? rated : rated === undefined ? [...relevance.keys()] : rated.filter((id) => relevance.has(id))
  if (query.sort === 'reliability' || (query.sort === 'relevance' && relevance !== undefined)) {
    const offset = offsetOf(cursor)
    if (offset === null) return null
    if (ids === undefined) return await rankedPage(listing, await reliabilityRanking(listing, board, filter, offset + limit), board, offset, limit)
    // Stable: equals keep id order.
    const score = (id: string) => relevance?.get(id) ?? 0
    const ranked = (await listing.ids({ ...filter, ids }, ids.length)).sort(query.sort === 'reliability' ? byHealth(board) : (a, b) => score(b) - score(a))
    return await rankedPage(listing, ranked, board, offset, limit)
  }
  const after = cursor === undefined ? undefined : decodeCursor(cursor, BEE_ID_SHAPE)
  if (after === null) return null
  const { records, more } = await listing.list({ ...filter, after, ids }, limit)
  const last = records.at(-1)
  return { bees: records.map((record) => ({ ...record, health: board.of(record.id) })), nextCursor: more && last !== undefined ? encodeCursor(last.id) : null }
}
