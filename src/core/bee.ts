import type { ValidateFunction } from 'ajv'
import type { CodesByStatus } from './error-catalog.js'
import type { Logger } from './logger.js'
import type { Static, TSchema } from 'typebox'
import type { PlanMicros } from './ledger/subscriptions/subscription-repository.js'
import type { BeeRecord, BeeStatus, Pricing } from './schemas.js'
import type { Stepped } from './stepped.js'

// What a Bee is, apart from the Registry that holds them: the registry, its cache and the factory of registered
// Bees all need these, and none of them needs another's code for it.

/** What a Bee's handler returns; the pipeline wraps it in Honey. */
export interface BeeOutcome<Result> {
  result: Result
  /** 0..1; each Bee documents its meaning. */
  confidence: number
  /** Age in seconds of the data behind the result. */
  freshness: number
}

export interface BeeContext {
  log: Logger
  requestId: string
  /** A run of an async Bee: its own time limit (maxRunSeconds), in place of the sync call's. */
  timeoutMs?: number
  /** A run of an async Bee: aborted when the run is cancelled or expires, or its worker stops; a stream: when its client goes. */
  signal?: AbortSignal
  /** A stream Bee's call: where its events go as they come (its Honey is still the outcome); absent: a call answered once. */
  events?: BeeEvents
}

/**
 * Where a stream Bee's events go: relayed to a client, or kept on its run. Each may throw to end the stream (an event
 * that breaks the eventSchema, a client gone); the stream waits for each before reading on.
 */
export interface BeeEvents {
  /** One event, the JSON the upstream sent. */
  data (event: unknown): void | Promise<void>
  /** How far the work is, 0 to 1. */
  progress (fraction: number): void | Promise<void>
}

/** Error codes by HTTP status, each one the catalog (error-catalog.ts) gives that status. */
export type ErrorCodes = Readonly<CodesByStatus>

/** A Bee as its author declares it: metadata, schemas and the function that does the work. */
export interface BeeDefinition<In extends TSchema = TSchema, Out extends TSchema = TSchema> {
  id: string
  name: string
  description: string
  category: string
  colony: string
  type: string
  ownerId: string | null
  pricing: Pricing
  config: BeeRecord['config']
  inputSchema: In
  outputSchema: Out
  /** Its semantic version (default 1.0.0): callers pin a major, a minor or the exact version with Bee-Version. */
  version?: string
  status?: BeeStatus
  statusMessage?: string | null
  sunsetAt?: string | null
  lastUpdated?: string
  /** What its execution may fail with besides the pipeline's refusals (its upstream's 502 and 504), for its execute route's documentation. */
  errors?: ErrorCodes
  /** The most calls a minute the Bee takes from all callers together (set by its publisher); absent or null: no limit. */
  callsPerMinute?: number | null
  execute (input: Static<In>, context: BeeContext): Promise<BeeOutcome<Static<Out>>>
}

/** A registered Bee: its public record plus what the execution pipeline needs, computed once. */
export interface RegisteredBee {
  record: BeeRecord
  definition: BeeDefinition
  /** Whether a call needs a wallet (pay-per-use and subscription Bees). */
  paid: boolean
  priceMicros: number
  /** A subscription Bee's plan in micro-units; null for the others. */
  plan: PlanMicros | null
  validateInput: ValidateFunction
  validateOutput: ValidateFunction
  /** A stream Bee's check of each event against its eventSchema; null for the others. */
  validateEvent: ValidateFunction | null
  /** Built-in Bees run in-process (a bad output is our 500); published ones run remotely (their 502). */
  remote: boolean
  /** The Bee's own rate limit, in calls a minute from all callers together (its publisher's, or the operator's for a built-in); null: none. */
  callsPerMinute: number | null
  /**
   * A published Bee's earlier versions, the latest first, each served as its own RegisteredBee: read when first needed
   * (a call pinned to one, the list of versions), then kept with the Bee. Absent: the Bee has only its current version.
   */
  earlierVersions?: () => Stepped<readonly RegisteredBee[]>
}
