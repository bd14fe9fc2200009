import type { ApiError } from '../../core/errors.js'
import type { ExecutionOutcome, ExecutionRequest } from '../../core/execution/execution.js'
import type { CatalogListing } from '../../core/catalog-listing.js'
import type { HealthBoard } from '../../core/health/board.js'
import type { Registry } from '../../core/registry.js'
import type { CatalogSearch } from '../../core/search.js'

/** What the MCP door needs of the app: the catalog, its search and health, and the one execution pipeline. */
export interface McpOptions {
  registry: Registry
  /** Every Bee's recent health, for find_bees. */
  board: HealthBoard
  /** The catalog's search, for find_bees. */
  search: CatalogSearch
  /** The catalog a page at a time, for tools/list, resources/list and find_bees. */
  listing: CatalogListing
  execute (request: ExecutionRequest): Promise<ExecutionOutcome>
  /** The 503 for a failure that is the ledger database being away or full (StoreHealth.refusal); null for any other. */
  storeRefusal (error: unknown): ApiError | null
}
