import type { BeeEvents } from '../../core/bee.js'
import type { ApiError } from '../../core/errors.js'
import type { ExecutionOutcome, ExecutionRequest } from '../../core/execution/execution.js'
import type { RunStartOutcome } from '../../core/execution/executor.js'
import type { RunService } from '../../core/runs/service.js'
import type { CatalogListing } from '../../core/catalog-listing.js'
import type { HealthBoard } from '../../core/health/board.js'
import type { Registry } from '../../core/registry.js'
import type { CatalogSearch } from '../../core/search.js'

/** A stream Bee's events relayed within a call's answer (notifications/progress), until `signal` says its client went. */
export interface Relay {
  events: BeeEvents
  signal: AbortSignal
}

/** What the MCP door needs of the app: the catalog, its search and health, and the one execution pipeline. */
export interface McpOptions {
  registry: Registry
  /** Every Bee's recent health, for find_bees. */
  board: HealthBoard
  /** The catalog's search, for find_bees. */
  search: CatalogSearch
  /** The catalog a page at a time, for tools/list, resources/list and find_bees. */
  listing: CatalogListing
  /** The pipeline, whole; with a relay, a stream Bee's call streams its events to it (held for its maxRunSeconds). */
  execute (request: ExecutionRequest, relay?: Relay): Promise<ExecutionOutcome>
  /** As execute, an async Bee's call becoming a run: a task-augmented tools/call. */
  executeOrStart (request: ExecutionRequest): Promise<ExecutionOutcome | RunStartOutcome>
  /** Runs, read, awaited, cancelled and listed as tasks. */
  runs: Pick<RunService, 'get' | 'ended' | 'cancel' | 'list'>
  /** RUN_RETENTION_HOURS, for a task's ttl. */
  runRetentionHours: number
  /** The 503 for a failure that is the ledger database being away or full (StoreHealth.refusal); null for any other. */
  storeRefusal (error: unknown): ApiError | null
}
