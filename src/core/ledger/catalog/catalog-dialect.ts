import type { Expression, InsertQueryBuilder, InsertResult, QueryCreator, RawBuilder, Transaction } from 'kysely'
import type { Tables } from '../tables.js'
import type { CatalogRepository, SearchText, StoredBee } from './catalog-repository.js'
import type { SealedRow } from './insert-row.js'

/** The statement that keeps a Bee's replaced version: an insert that reads the row before the change writes it. */
export type Archive = (query: QueryCreator<Tables>) => InsertQueryBuilder<Tables, 'bee_versions', InsertResult>

/** A write of the catalog's rows under the version `version` (see CatalogDialect.change). */
export type CatalogWrite<P, T> = (query: QueryCreator<Tables>, version: Expression<number>, prepared: P) => Promise<T>

/**
 * What the catalog does differently on each database: its writes (how a change takes the catalog version, how the
 * search row follows the Bee), its search, and its id order. One strategy per dialect, chosen once when the store opens.
 */
export interface CatalogDialect {
  /**
   * Ids compared as JavaScript compares them (byte order), whatever the database's collation, so pages merge with
   * the built-in Bees and a cursor means the same on every backend.
   */
  readonly idInByteOrder: RawBuilder<string>
  /**
   * Runs a change under the next catalog version, which it stamps on the rows it writes. Taking the version locks its
   * row until commit: changes commit in version order, so a reader that saw version V has every change up to V. Every
   * change waits for that lock, so it is taken as late as it can be: `prepare` does what no other change waits for
   * (the search index; an owner's quota, under that owner's lock), then `write` writes the catalog's rows.
   */
  change: <P, T>(prepare: (trx: Transaction<Tables>) => Promise<P>, write: CatalogWrite<P, T>) => Promise<T>
  /** Writes the Bee's search row in the transaction `trx`, or removes it when `text` is null. */
  index: (trx: Transaction<Tables>, text: SearchText | null, id: string) => Promise<void>
  search: CatalogRepository['search']
  /**
   * Inserts the Bee unless its owner already has `maxPerOwner` Bees or its id is taken, its search row and the
   * version with it. `sealed`: its row as stored, its secrets sealed.
   */
  insertWithinQuota: (bee: StoredBee, maxPerOwner: number, sealed: () => SealedRow) => ReturnType<CatalogRepository['insertBeeWithinQuota']>
  /**
   * Runs `update`, the write of a published Bee's changed row, with its search row and the next version, after
   * `archive` (when the change replaces the Bee's semantic version), which copies the row as it was into bee_versions.
   */
  update: <T>(text: SearchText, archive: Archive | null, update: (query: QueryCreator<Tables>, version: Expression<number>) => Promise<T>) => Promise<T>
}
