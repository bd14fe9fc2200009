import { encodeCursor } from './cursors.js'

export interface PageRequest {
  limit: number
  /** Opaque position from a previous page's nextCursor. */
  cursor?: string | undefined
}

export interface Page<T> {
  items: T[]
  nextCursor: string | null
}

/** A page, or why there is none: the cursor was not one this listing gave out. */
export type PageOutcome<T> = ({ ok: true } & Page<T>) | { ok: false, reason: 'INVALID_CURSOR' }

export const INVALID_CURSOR = { ok: false, reason: 'INVALID_CURSOR' } as const

/**
 * Cuts `limit` rows off rows fetched with `limit + 1`: the extra row only says another page exists,
 * and the page's last key becomes the cursor of the next.
 */
export function page<R, T> (rows: R[], limit: number, keyOf: (row: R) => string | number, toItem: (row: R) => T): PageOutcome<T> {
  const more = rows.length > limit
  const kept = more ? rows.slice(0, limit) : rows
  const last = kept[kept.length - 1]
  return { ok: true, items: kept.map(toItem), nextCursor: more && last !== undefined ? encodeCursor(keyOf(last)) : null }
}
