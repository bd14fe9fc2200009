import type { CatalogBee, CatalogFilter, CatalogRepository, UnreadableBee } from './ledger/catalog/catalog-repository.js'
import type { Logger } from './logger.js'
import { publishedRecord } from './publishing/published-bee.js'
import type { Registry } from './registry.js'
import type { BeeRecord } from './schemas.js'

const matches = (record: BeeRecord, filter: CatalogFilter) =>
  record.status === 'active' &&
  (filter.after === undefined || record.id > filter.after) &&
  (filter.ids === undefined || filter.ids.includes(record.id)) &&
  (filter.category === undefined || record.category === filter.category) &&
  (filter.colony === undefined || record.colony === filter.colony) &&
  (filter.ownerId === undefined || record.ownerId === filter.ownerId) &&
  (filter.pricing === undefined || record.pricing.type === filter.pricing)

/** Two lists in id order as one, cut at `limit`, and whether more follow. */
function merged<T> (builtins: T[], stored: T[], idOf: (item: T) => string, limit: number): { items: T[], more: boolean } {
  const items: T[] = []
  let [b, s] = [0, 0]
  while (items.length <= limit && (b < builtins.length || s < stored.length)) {
    const [builtin, published] = [builtins[b], stored[s]]
    if (published === undefined || (builtin !== undefined && idOf(builtin) < idOf(published))) {
      items.push(builtin as T)
      b++
    } else {
      items.push(published)
      s++
    }
  }
  return { items: items.slice(0, limit), more: items.length > limit }
}

/**
 * The active Bees as the catalog lists them: published ones read a page at a time from the database (filtered,
 * in id order, keyset-paged there), merged in id order with the built-in Bees, which live in code.
 */
export class CatalogListing {
  readonly #registry: Registry
  readonly #store: CatalogRepository
  readonly #log: Logger
  /** The unreadable rows reported already: each is reported once, not on every page that skips it. */
  readonly #reported = new Set<string>()

  constructor (registry: Registry, store: CatalogRepository, log: Logger) {
    this.#registry = registry
    this.#store = store
    this.#log = log
  }

  /**
   * The stored Bees a page takes: `limit` readable ones when there are as many. A row that cannot be read is skipped
   * (its detail answers 404 likewise), and one more row read in its place, so the page and whether more follow stay right.
   */
  async #readable (filter: CatalogFilter, limit: number): Promise<CatalogBee[]> {
    for (let skipped = 0; ;) {
      const rows = await this.#store.activeBees(filter, limit + skipped)
      const unreadable = rows.filter((row): row is UnreadableBee => 'unreadable' in row)
      if (unreadable.length === skipped || rows.length < limit + skipped) {
        for (const { id, unreadable: reason } of unreadable) this.#report(id, reason)
        return rows.filter((row): row is CatalogBee => !('unreadable' in row)).slice(0, limit)
      }
      skipped = unreadable.length
    }
  }

  #report (id: string, reason: string): void {
    if (this.#reported.has(id)) return
    this.#reported.add(id)
    this.#log.warn({ beeId: id, reason }, 'published Bee skipped: its stored row cannot be read')
  }

  #builtins (filter: CatalogFilter): BeeRecord[] {
    return this.#registry.builtins().flatMap(({ record }) => matches(record, filter) ? [record] : [])
  }

  /** The active Bees matching `filter`, in id order, at most `limit`, and whether more follow. */
  async list (filter: CatalogFilter, limit: number): Promise<{ records: BeeRecord[], more: boolean }> {
    const stored = (await this.#readable(filter, limit + 1)).map(publishedRecord)
    const { items, more } = merged(this.#builtins(filter), stored, (record) => record.id, limit)
    return { records: items, more }
  }

  /** list's ids alone, for a ranking, which then reads only its page's records (see `records`). */
  async ids (filter: CatalogFilter, limit: number): Promise<string[]> {
    const stored = await this.#store.activeBeeIds(filter, limit + 1)
    return merged(this.#builtins(filter).map((record) => record.id), stored, (id) => id, limit).items
  }

  /** The records of the active Bees among `ids`, in the order of `ids`. */
  async records (ids: readonly string[]): Promise<BeeRecord[]> {
    const { records } = await this.list({ ids }, ids.length)
    const byId = new Map(records.map((record) => [record.id, record]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }
}
