import type { ValidateFunction } from 'ajv'
import type { Logger } from './logger.js'
import type { Static, TSchema } from 'typebox'
import type { PlanMicros } from './ledger/subscriptions/subscription-repository.js'
import { toMicros } from './money.js'
import type { BeeRecord, BeeStatus, Pricing, SubscriptionPlan } from './schemas.js'
import { checkBodySchema, compileBodySchema, lazyValidator } from './validation.js'

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
}

/** Error codes by HTTP status. */
export type ErrorCodes = Readonly<Record<number, readonly string[]>>

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
  /** Built-in Bees run in-process (a bad output is our 500); published ones run remotely (their 502). */
  remote: boolean
  /** The Bee's own rate limit, in calls a minute from all callers together (its publisher's, or the operator's for a built-in); null: none. */
  callsPerMinute: number | null
}

export interface BeeFilter {
  category?: string | undefined
  colony?: string | undefined
  ownerId?: string | undefined
  pricing?: string | undefined
  /** Only Bees with an id after this one (cursor pagination in id order). */
  after?: string | undefined
}

/** A subscription Bee's plan in micro-units; its costPerCall must be the overage price (0 without one). */
function planMicros (definition: BeeDefinition): PlanMicros | null {
  const { type, plan, costPerCall } = definition.pricing
  if (type !== 'subscription') return null
  if (plan === undefined) throw new Error(`Subscription Bee "${definition.id}" needs a plan`)
  const periodPriceMicros = toMicros(plan.periodPrice)
  const overageMicros = plan.overagePrice === null ? null : toMicros(plan.overagePrice)
  if (periodPriceMicros === null || periodPriceMicros <= 0 || (overageMicros === null && plan.overagePrice !== null)) {
    throw new Error(`Bee "${definition.id}" has a plan price with more than 6 decimal places`)
  }
  if ((plan.overagePrice ?? 0) !== costPerCall) throw new Error(`Subscription Bee "${definition.id}": costPerCall must be the plan's overagePrice, or 0 without one`)
  return { periodPriceMicros, periodSeconds: plan.periodDays * 86_400, includedCalls: plan.includedCalls, overageMicros }
}

export const executePath = (id: string) => `/api/bees/${id}/execute`

/**
 * The registry is plain data, independent of routes: Bees are added, changed and removed at any
 * time, and the execution pipeline serves each through the same validation, payment and Honey
 * steps. `version` changes with every change, so caches of what it lists can key on it.
 */
export class Registry {
  readonly #bees = new Map<string, RegisteredBee>()
  readonly #builtinLimits: ReadonlyMap<string, number>
  readonly #builtinPlans: ReadonlyMap<string, SubscriptionPlan>
  /** Every entry in id order, kept so by each change. */
  #sorted: RegisteredBee[] = []
  /** Whether #sorted was handed out: the next change then works on a copy, so a list handed out never moves under its reader. */
  #shared = false
  #version = 0
  readonly #listeners = new Set<() => void>()

  /**
   * `builtinLimits`: the operator's calls-a-minute limits of built-in Bees, by id (RATE_LIMIT_BUILTIN_BEES);
   * `builtinPlans`: the built-in Bees the operator prices by subscription instead, by id (SUBSCRIPTION_BUILTIN_BEES).
   */
  constructor (builtinLimits: ReadonlyMap<string, number> = new Map(), builtinPlans: ReadonlyMap<string, SubscriptionPlan> = new Map()) {
    this.#builtinLimits = builtinLimits
    this.#builtinPlans = builtinPlans
  }

  get version (): number {
    return this.#version
  }

  register<In extends TSchema, Out extends TSchema> (given: BeeDefinition<In, Out>, options: { remote?: boolean, replace?: boolean } = {}): RegisteredBee {
    if (this.#bees.has(given.id) && options.replace !== true) throw new Error(`Bee "${given.id}" is already registered`)
    const remote = options.remote === true
    const builtinPlan = remote ? undefined : this.#builtinPlans.get(given.id)
    // The operator's plan replaces the Bee's own price: its overage price (or 0) is the spec's costPerCall.
    const definition = builtinPlan === undefined
      ? given
      : { ...given, pricing: { type: 'subscription' as const, costPerCall: builtinPlan.overagePrice ?? 0, currency: given.pricing.currency, plan: builtinPlan } }
    const priceMicros = toMicros(definition.pricing.costPerCall)
    if (priceMicros === null) throw new Error(`Bee "${definition.id}" has a price with more than 6 decimal places`)
    if (definition.pricing.type === 'pay-per-use' && priceMicros <= 0) throw new Error(`Pay-per-use Bee "${definition.id}" needs a price above 0`)
    const plan = planMicros(definition)
    const paid = definition.pricing.type !== 'free'
    const { execute: _execute, errors: _errors, inputSchema, outputSchema, status, statusMessage, sunsetAt, lastUpdated, callsPerMinute, ...metadata } = definition
    checkBodySchema(inputSchema)
    checkBodySchema(outputSchema)
    const entry: RegisteredBee = {
      record: {
        ...metadata,
        endpoint: executePath(definition.id),
        inputSchema,
        outputSchema,
        status: status ?? 'active',
        statusMessage: statusMessage ?? null,
        sunsetAt: sunsetAt ?? null,
        lastUpdated: lastUpdated ?? new Date().toISOString()
      },
      definition: definition as unknown as BeeDefinition,
      paid,
      priceMicros,
      plan,
      // Compiled on the version's first call (not for the whole catalog at start, nor at every change), and freed with it (see compileBodySchema).
      validateInput: lazyValidator(() => compileBodySchema(inputSchema)),
      validateOutput: lazyValidator(() => compileBodySchema(outputSchema)),
      remote,
      callsPerMinute: (remote ? undefined : this.#builtinLimits.get(definition.id)) ?? callsPerMinute ?? null
    }
    this.#bees.set(definition.id, entry)
    this.#place(definition.id, entry)
    this.#changed()
    return entry
  }

  /** Changes a Bee's status in place, so routes holding the entry see it at once. */
  setStatus (id: string, status: BeeStatus, statusMessage: string | null, sunsetAt: string | null, lastUpdated: string): void {
    const entry = this.#bees.get(id)
    if (entry === undefined) return
    const { record } = entry
    if (record.status === status && record.statusMessage === statusMessage && record.sunsetAt === sunsetAt) return
    entry.record = { ...record, status, statusMessage, sunsetAt, lastUpdated }
    this.#changed()
  }

  remove (id: string): void {
    if (!this.#bees.delete(id)) return
    this.#place(id, null)
    this.#changed()
  }

  /**
   * Puts `entry` at its id's place in the id order (null: takes the id out): a binary search and a splice (at the
   * end when Bees come in id order, as a catalog loads), where sorting the whole catalog again after every change
   * cost O(n log n) per publish.
   */
  #place (id: string, entry: RegisteredBee | null): void {
    if (this.#shared) {
      this.#sorted = [...this.#sorted]
      this.#shared = false
    }
    const sorted = this.#sorted
    let [low, high] = [0, sorted.length]
    while (low < high) {
      const middle = (low + high) >>> 1
      if ((sorted[middle] as RegisteredBee).record.id < id) low = middle + 1
      else high = middle
    }
    const present = sorted[low]?.record.id === id
    if (entry === null) sorted.splice(low, present ? 1 : 0)
    else sorted.splice(low, present ? 1 : 0, entry)
  }

  get (id: string): RegisteredBee | undefined {
    return this.#bees.get(id)
  }

  /** Every registered Bee, whatever its status, in id order. */
  all (): readonly RegisteredBee[] {
    this.#shared = true
    return this.#sorted
  }

  /** Active Bees matching the filter (and `keep`, when given), in id order, at most `limit`, and whether more follow. */
  list (filter: BeeFilter, limit: number, keep?: (record: BeeRecord) => boolean): { records: BeeRecord[], more: boolean } {
    const records: BeeRecord[] = []
    for (const { record } of this.#sorted) {
      if (record.status !== 'active') continue
      if (filter.after !== undefined && record.id <= filter.after) continue
      if (filter.category !== undefined && record.category !== filter.category) continue
      if (filter.colony !== undefined && record.colony !== filter.colony) continue
      if (filter.ownerId !== undefined && record.ownerId !== filter.ownerId) continue
      if (filter.pricing !== undefined && record.pricing.type !== filter.pricing) continue
      if (keep !== undefined && !keep(record)) continue
      if (records.length === limit) return { records, more: true }
      records.push(record)
    }
    return { records, more: false }
  }

  /** Calls `listener` after every change (a door announcing it, say); returns what unsubscribes it. */
  onChange (listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  #changed (): void {
    this.#version++
    for (const listener of this.#listeners) listener()
  }
}
