import { LRUCache } from 'lru-cache'
import type { CachedText } from './cached-text.js'

/** The most bytes of discovery answers kept: the pages asked most, a few hundred at the default size. */
const MAX_BYTES = 8 * 1024 * 1024

/**
 * Rendered discovery answers by query, for as long as the catalog and the health figures stay at the versions they
 * were rendered at. A page is a query of the database, so the pages asked again and again (an agent's usual
 * categories, its searches, the bare list) are read once per change instead of once per request.
 */
export class DiscoveryAnswers {
  readonly #answers = new LRUCache<string, CachedText>({ maxSize: MAX_BYTES, sizeCalculation: (answer) => answer.body.length + 1 })
  #versions = ''

  /**
   * The answer to `key` at these versions, rendering it when there is none (null: the query has no answer). A kept
   * answer comes back as it is, not in a promise: the usual discovery call then costs its handler no turn of the
   * microtask queue.
   */
  get (key: string, versions: () => string, render: () => Promise<CachedText | null>): CachedText | Promise<CachedText | null> {
    const at = versions()
    if (at !== this.#versions) {
      this.#answers.clear()
      this.#versions = at
    }
    return this.#answers.get(key) ?? this.#rendered(key, at, versions, render)
  }

  async #rendered (key: string, at: string, versions: () => string, render: () => Promise<CachedText | null>): Promise<CachedText | null> {
    const answer = await render()
    // A change while it was read: it may be of either version, so it is not kept.
    if (answer !== null && versions() === at && answer.body.length <= MAX_BYTES) this.#answers.set(key, answer)
    return answer
  }
}
