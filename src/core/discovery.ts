import type { HealthBoard } from './health/board.js'
import { byReliability, meetsSuccessRate } from './health/reliability.js'
import { decodeCursor, encodeCursor } from './ledger/cursors.js'
import type { BeeFilter, Registry } from './registry.js'
import { BEE_ID_SHAPE, type BeeRecord } from './schemas.js'

export type DiscoverySort = 'id' | 'reliability'

export interface Discovery {
  filter: Omit<BeeFilter, 'after'>
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

/**
 * Discovery: the active Bees matching a query, each with its health, a page at a time; null when the cursor is not
 * one of this sort's. In id order, a cursor is the last id (a walk lists each Bee present throughout once);
 * ranked by reliability, it is the offset into the ranking of the moment, which moves as figures do.
 */
export function discover (registry: Registry, board: HealthBoard, query: Discovery): DiscoveryPage | null {
  const { minSuccessRate, limit, cursor } = query
  const keep = minSuccessRate === undefined ? undefined : (record: BeeRecord) => meetsSuccessRate(board.of(record.id), minSuccessRate)
  if (query.sort === 'reliability') {
    const offset = offsetOf(cursor)
    if (offset === null) return null
    const ranked = registry.list(query.filter, Infinity, keep).records
      .map((record) => ({ record, health: board.of(record.id) }))
      // Stable: equal figures stay in id order.
      .sort((a, b) => byReliability(a.health, b.health))
    const end = offset + limit
    return {
      bees: ranked.slice(offset, end).map(({ record, health }) => ({ ...record, health })),
      nextCursor: end < ranked.length ? encodeCursor(`${RANK_PREFIX}${end}`) : null
    }
  }
  const after = cursor === undefined ? undefined : decodeCursor(cursor, BEE_ID_SHAPE)
  if (after === null) return null
  const { records, more } = registry.list({ ...query.filter, after }, limit, keep)
  const last = records.at(-1)
  return { bees: records.map((record) => ({ ...record, health: board.of(record.id) })), nextCursor: more && last !== undefined ? encodeCursor(last.id) : null }
}
