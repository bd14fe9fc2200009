import { LRUCache } from 'lru-cache'

/** How many credentials, and for how long, a lookup remembers. */
const MAX_REMEMBERED = 10_000
const REMEMBER_MS = 30_000

/**
 * A lookup from a secret's hash to the id it names (a wallet, a publisher) that remembers its answers
 * for a short while, least recently used first out, and asks once for concurrent callers of the same
 * hash. A hash that names nothing is not remembered, so a key issued a moment ago counts at once. Only
 * for counting callers: what a credential may do is still checked by the route, against the ledger.
 */
export function rememberedIds (lookup: (hash: string) => Promise<string | null>): (hash: string) => Promise<string | null> {
  const cache = new LRUCache<string, string>({
    max: MAX_REMEMBERED,
    ttl: REMEMBER_MS,
    fetchMethod: async (hash) => (await lookup(hash)) ?? undefined
  })
  return async (hash) => (await cache.fetch(hash)) ?? null
}
