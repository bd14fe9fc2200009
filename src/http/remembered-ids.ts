import { LRUCache } from 'lru-cache'

/** How many credentials, and for how long, a lookup remembers. */
const MAX_REMEMBERED = 10_000
const REMEMBER_MS = 30_000

/** The id a hash names, looked up or remembered; `peek` answers at once from memory alone (undefined: not remembered). */
export type RememberedIds = ((hash: string) => Promise<string | null>) & { peek: (hash: string) => string | undefined }

/**
 * A lookup from a secret's hash to the id it names (a wallet, a publisher) that remembers its answers
 * for a short while, least recently used first out, and asks once for concurrent callers of the same
 * hash. A hash that names nothing is not remembered, so a key issued a moment ago counts at once. Only
 * for counting callers: what a credential may do is still checked by the route, against the ledger.
 */
export function rememberedIds (lookup: (hash: string) => Promise<string | null>): RememberedIds {
  const cache = new LRUCache<string, string>({
    max: MAX_REMEMBERED,
    ttl: REMEMBER_MS,
    fetchMethod: async (hash) => (await lookup(hash)) ?? undefined
  })
  return Object.assign(async (hash: string) => (await cache.fetch(hash)) ?? null, { peek: (hash: string) => cache.get(hash) })
}
