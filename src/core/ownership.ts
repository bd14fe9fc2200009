import type { Principal } from './principal.js'

/** The owner whose records the principal manages; undefined for the operator, who manages everyone's. */
export const ownerScope = (principal: Principal): string | undefined =>
  principal.kind === 'publisher' ? principal.publisher.id : undefined

/**
 * The record, when the principal may manage it: the operator manages every one, a publisher only its own. Someone
 * else's record is refused as missing (`notFound`), never as forbidden, so no one learns which ids are taken.
 */
export function owned<T extends { ownerId: string }> (principal: Principal, record: T | null, notFound: () => Error): T {
  const scope = ownerScope(principal)
  if (record === null || (scope !== undefined && scope !== record.ownerId)) throw notFound()
  return record
}
