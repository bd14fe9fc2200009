import { LRUCache } from 'lru-cache'
import type { RegisteredBee } from './bee.js'
import type { Stepped } from './stepped.js'

/** What loading a published Bee finds: the Bee, `false` for a stored Bee this version cannot serve, null for none. */
export type LoadedBee = RegisteredBee | false

export type BeeLoader = (id: string) => Promise<LoadedBee | null>

/**
 * The published Bees this instance has loaded, the most recently used `max` of them: memory is bounded by
 * use, not by the catalog. A miss reads one row; concurrent misses for one id share that read. A Bee that
 * cannot be served is remembered too (`false`), so its one warning is not repeated at every call.
 */
export class BeeCache {
  readonly #cache: LRUCache<string, LoadedBee>
  readonly #loading = new Map<string, Promise<RegisteredBee | undefined>>()
  readonly #load: BeeLoader

  constructor (max: number, load: BeeLoader) {
    this.#cache = new LRUCache({ max })
    this.#load = load
  }

  /** The Bee at once when loaded (no promise on the warm path), else the promise of its one read. */
  get (id: string): Stepped<RegisteredBee | undefined> {
    const hit = this.#cache.get(id)
    if (hit !== undefined) return hit === false ? undefined : hit
    return this.#loading.get(id) ?? this.#fetch(id)
  }

  /** The Bee if it is loaded, without reading it nor counting a use. */
  peek (id: string): RegisteredBee | undefined {
    return this.#cache.peek(id) || undefined
  }

  /** Forgets a Bee that changed or went: its next use reads it again. A read under way is not cached either. */
  evict (id: string): void {
    this.#cache.delete(id)
    this.#loading.delete(id)
  }

  #fetch (id: string): Promise<RegisteredBee | undefined> {
    const loading: Promise<RegisteredBee | undefined> = this.#load(id).then((bee) => {
      // Evicted meanwhile: this caller asked before the change and gets what was read, but it is not kept.
      if (this.#loading.get(id) === loading) {
        this.#loading.delete(id)
        if (bee !== null) this.#cache.set(id, bee)
      }
      return bee === null || bee === false ? undefined : bee
    }, (error: unknown) => {
      if (this.#loading.get(id) === loading) this.#loading.delete(id)
      throw error
    })
    this.#loading.set(id, loading)
    return loading
  }
}
