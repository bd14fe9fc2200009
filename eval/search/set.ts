// The search quality set: a marketplace-like catalog and labelled queries (eval/search/README.md).
import { readFileSync } from 'node:fs'

export interface CatalogBee { id: string, name: string, description: string, category: string, colony: string }

export type Split = 'tune' | 'held-out'

export interface LabelledQuery {
  id: string
  query: string
  /** Fixed: an engine is tuned on `tune` only; `held-out` is what it is judged by. */
  split: Split
  /** Bee id to grade: 3 what was asked for, 2 a close substitute, 1 related. Unlisted Bees are 0. */
  relevant: Record<string, number>
}

const read = <T>(name: string): T => JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as T

export const loadCatalog = (): CatalogBee[] => read<{ bees: CatalogBee[] }>('catalog.json').bees
export const loadQueries = (): LabelledQuery[] => read<{ queries: LabelledQuery[] }>('queries.json').queries
