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

interface Ranked { record: BeeRecord, health: ReturnType<HealthBoard['of']> }

/** Ranked pages: the cursor is an offset into the ranking of the moment. */
function rankedPage (records: BeeRecord[], board: HealthBoard, compare: (a: Ranked, b: Ranked) => number, limit: number, cursor: string | undefined): DiscoveryPage | null {
  const offset = offsetOf(cursor)
  if (offset === null) return null
  // Stable: equals keep the order they came in.
  const ranked = records.map((record) => ({ record, health: board.of(record.id) })).sort(compare)
  const end = offset + limit
  return {
    bees: ranked.slice(offset, end).map(({ record, health }) => ({ ...record, health })),
    nextCursor: end < ranked.length ? encodeCursor(`${RANK_PREFIX}${end}`) : null
  }
}

/**
 * The reliability ranking at `offset`: the Bees with a success rate (the health board's, bounded by use) by
 * reliability, then every other active Bee in id order, read from the catalog only as deep as the page goes.
 */
async function reliabilityPage (listing: CatalogListing, board: HealthBoard, filter: CatalogFilter, limit: number, cursor: string | undefined): Promise<DiscoveryPage | null> {
  const offset = offsetOf(cursor)
  if (offset === null) return null
  const rated = board.rated()
  const ranked = (await listing.list({ ...filter, ids: rated }, rated.length)).records
    .map((record) => ({ record, health: board.of(record.id) })).sort((a, b) => byReliability(a.health, b.health))
  const end = offset + limit
  // The rest in id order, the ranked ones left out: a prefix long enough for this page and one more Bee.
  const wanted = end + 1 - ranked.length
  const rankedIds = new Set(ranked.map(({ record }) => record.id))
  const rest = wanted <= 0 ? [] : (await listing.list(filter, wanted + ranked.length)).records.filter((record) => !rankedIds.has(record.id))
  const all = [...ranked.map(({ record }) => record), ...rest]
  return {
    bees: all.slice(offset, end).map((record) => ({ ...record, health: board.of(record.id) })),
    nextCursor: end < all.length ? encodeCursor(`${RANK_PREFIX}${end}`) : null
  }
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
  if (ids === undefined && query.sort === 'reliability') return await reliabilityPage(listing, board, filter, limit, cursor)
  if (ids !== undefined && (query.sort === 'reliability' || (query.sort === 'relevance' && relevance !== undefined))) {
    const { records } = await listing.list({ ...filter, ids }, ids.length)
    const score = (id: string) => relevance?.get(id) ?? 0
    const compare = query.sort === 'reliability' ? (a: Ranked, b: Ranked) => byReliability(a.health, b.health) : (a: Ranked, b: Ranked) => score(b.record.id) - score(a.record.id)
    return rankedPage(records, board, compare, limit, cursor)
  }
  const after = cursor === undefined ? undefined : decodeCursor(cursor, BEE_ID_SHAPE)
  if (after === null) return null
  const { records, more } = await listing.list({ ...filter, after, ids }, limit)
  const last = records.at(-1)
  return { bees: records.map((record) => ({ ...record, health: board.of(record.id) })), nextCursor: more && last !== undefined ? encodeCursor(last.id) : null }
}
