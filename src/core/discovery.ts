import type { HealthBoard } from './health/board.js'
import { byReliability, meetsSuccessRate } from './health/reliability.js'
import { decodeCursor, encodeCursor } from './ledger/cursors.js'
import type { BeeFilter, Registry } from './registry.js'
import { BEE_ID_SHAPE, type BeeRecord } from './schemas.js'
import type { CatalogSearch } from './search.js'

export type DiscoverySort = 'id' | 'reliability' | 'relevance'

export interface Discovery {
  filter: Omit<BeeFilter, 'after'>
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
 * Discovery: the active Bees matching a query, each with its health, a page at a time; null when the cursor is not
 * one of this sort's. In id order, a cursor is the last id (a walk lists each Bee present throughout once);
 * ranked by relevance to `q` or by reliability, it is the offset into the ranking of the moment, which moves as
 * figures do. With `q`, only the Bees the catalog's search finds, best match first unless another order is asked.
 */
export async function discover (registry: Registry, board: HealthBoard, search: CatalogSearch, query: Discovery): Promise<DiscoveryPage | null> {
  const { minSuccessRate, limit, cursor } = query
  const relevance = query.q === undefined ? undefined : await search(query.q)
  const keep = (record: BeeRecord) =>
    (relevance === undefined || relevance.has(record.id)) &&
    (minSuccessRate === undefined || meetsSuccessRate(board.of(record.id), minSuccessRate))
  if (query.sort === 'reliability') {
    return rankedPage(registry.list(query.filter, Infinity, keep).records, board, (a, b) => byReliability(a.health, b.health), limit, cursor)
  }
  if (query.sort === 'relevance' && relevance !== undefined) {
    const score = (id: string) => relevance.get(id) ?? 0
    return rankedPage(registry.list(query.filter, Infinity, keep).records, board, (a, b) => score(b.record.id) - score(a.record.id), limit, cursor)
  }
  const after = cursor === undefined ? undefined : decodeCursor(cursor, BEE_ID_SHAPE)
  if (after === null) return null
  const { records, more } = registry.list({ ...query.filter, after }, limit, keep)
  const last = records.at(-1)
  return { bees: records.map((record) => ({ ...record, health: board.of(record.id) })), nextCursor: more && last !== undefined ? encodeCursor(last.id) : null }
}
