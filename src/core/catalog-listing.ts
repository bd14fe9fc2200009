import type { CatalogFilter, CatalogRepository } from './ledger/catalog/catalog-repository.js'
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

/**
 * The active Bees as the catalog lists them: published ones read a page at a time from the database (filtered,
 * in id order, keyset-paged there), merged in id order with the built-in Bees, which live in code.
 */
export class CatalogListing {
  readonly #registry: Registry
  readonly #store: CatalogRepository

  constructor (registry: Registry, store: CatalogRepository) {
    this.#registry = registry
    this.#store = store
  }

  /** The active Bees matching `filter`, in id order, at most `limit`, and whether more follow. */
  async list (filter: CatalogFilter, limit: number): Promise<{ records: BeeRecord[], more: boolean }> {
    const builtins = this.#registry.builtins().flatMap(({ record }) => matches(record, filter) ? [record] : [])
    const stored = (await this.#store.activeBees(filter, limit + 1)).map(publishedRecord)
    const merged: BeeRecord[] = []
    let [b, s] = [0, 0]
    while (merged.length <= limit && (b < builtins.length || s < stored.length)) {
      const [builtin, published] = [builtins[b], stored[s]]
      if (published === undefined || (builtin !== undefined && builtin.id < published.id)) {
        merged.push(builtin as BeeRecord)
        b++
      } else {
        merged.push(published)
        s++
      }
    }
    return { records: merged.slice(0, limit), more: merged.length > limit }
  }
}
