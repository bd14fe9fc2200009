import type { CatalogRepository } from './ledger/catalog/catalog-repository.js'

/** The most matches one search considers: a query matching more is refined, not paged through. */
export const SEARCH_LIMIT = 1000

/** The Bees matching a query, each with its relevance (higher is better), best first. */
export type CatalogSearch = (query: string) => Promise<ReadonlyMap<string, number>>

/**
 * The one search of the catalog, every door's: the database's own full-text engine, PostgreSQL's or
 * SQLite's FTS5 (the repository chosen in openStore), over the Bees' id, name, category, colony and
 * description, weighted in that order. The Bees with every word of the query; when none has them all,
 * those with any (ranked by how many and where), so "sentiment analysis" still finds a sentiment analyzer.
 */
export const catalogSearch = (store: CatalogRepository): CatalogSearch => async (query) => {
  let hits = await store.search(query, 'all', SEARCH_LIMIT)
  if (hits.length === 0) hits = await store.search(query, 'any', SEARCH_LIMIT)
  return new Map(hits.map((hit) => [hit.id, hit.relevance]))
}
