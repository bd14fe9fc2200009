import type { TSchema } from 'typebox'
import type { BeeDefinition, RegisteredBee } from './bee.js'
import { BeeCache, type BeeLoader } from './bee-cache.js'
import type { BeeStatus, SubscriptionPlan } from './schemas.js'
import { registeredBee } from './registered-bee.js'
import type { Stepped } from './stepped.js'

export type { BeeContext, BeeDefinition, BeeOutcome, ErrorCodes, RegisteredBee } from './bee.js'

/**
 * The Bees this instance can serve. Built-in Bees live in code and are always here; published ones live in the
 * database and are loaded on first use into a bounded cache (see BeeCache), so memory and start-up do not grow with
 * the catalog. `version` moves with every change of the catalog (its change sequence) and of the built-ins, so
 * caches of what is listed can key on it.
 */
export class Registry {
  readonly #builtins = new Map<string, RegisteredBee>()
  /** The built-ins in id order, rebuilt on the next read after a change. */
  #sorted: readonly RegisteredBee[] | null = null
  readonly #builtinLimits: ReadonlyMap<string, number>
  readonly #builtinPlans: ReadonlyMap<string, SubscriptionPlan>
  readonly #published: BeeCache
  #loader: BeeLoader | null = null
  #catalogVersion = 0
  #builtinChanges = 0
  readonly #listeners = new Set<() => void>()

  /**
   * `builtinLimits`: the operator's calls-a-minute limits of built-in Bees, by id (RATE_LIMIT_BUILTIN_BEES);
   * `builtinPlans`: the built-in Bees the operator prices by subscription instead, by id (SUBSCRIPTION_BUILTIN_BEES);
   * `cacheSize`: the most published Bees kept loaded (CATALOG_CACHE_SIZE).
   */
  constructor (builtinLimits: ReadonlyMap<string, number> = new Map(), builtinPlans: ReadonlyMap<string, SubscriptionPlan> = new Map(), cacheSize = 1000) {
    this.#builtinLimits = builtinLimits
    this.#builtinPlans = builtinPlans
    this.#published = new BeeCache(cacheSize, async (id) => this.#loader === null ? null : await this.#loader(id))
  }

  get version (): number {
    // Both only grow, so their sum moves with every change of either.
    return this.#catalogVersion + this.#builtinChanges
  }

  /** Registers a built-in Bee (one that runs in this process). */
  register<In extends TSchema, Out extends TSchema> (given: BeeDefinition<In, Out>, options: { replace?: boolean } = {}): RegisteredBee {
    if (this.#builtins.has(given.id) && options.replace !== true) throw new Error(`Bee "${given.id}" is already registered`)
    const builtinPlan = this.#builtinPlans.get(given.id)
    // The operator's plan replaces the Bee's own price: its overage price (or 0) is the spec's costPerCall.
    const definition = builtinPlan === undefined
      ? given
      : { ...given, pricing: { type: 'subscription' as const, costPerCall: builtinPlan.overagePrice ?? 0, currency: given.pricing.currency, plan: builtinPlan } }
    const entry = registeredBee(definition as unknown as BeeDefinition, false, this.#builtinLimits.get(definition.id))
    this.#builtins.set(definition.id, entry)
    this.#sorted = null
    this.#builtinChanged()
    return entry
  }

  /** Changes a built-in Bee's status in place, so routes holding the entry see it at once. */
  setStatus (id: string, status: BeeStatus, statusMessage: string | null, sunsetAt: string | null, lastUpdated: string): void {
    const entry = this.#builtins.get(id)
    if (entry === undefined) return
    const { record } = entry
    if (record.status === status && record.statusMessage === statusMessage && record.sunsetAt === sunsetAt) return
    entry.record = { ...record, status, statusMessage, sunsetAt, lastUpdated }
    this.#builtinChanged()
  }

  /** A built-in Bee by id. */
  builtin (id: string): RegisteredBee | undefined {
    return this.#builtins.get(id)
  }

  /** The built-in Bees, whatever their status, in id order. */
  builtins (): readonly RegisteredBee[] {
    this.#sorted ??= [...this.#builtins.values()].sort((a, b) => a.record.id < b.record.id ? -1 : 1)
    return this.#sorted
  }

  /**
   * Any Bee by id: at once when it is a built-in or loaded (the warm path takes no promise), else a promise of
   * its one read from the catalog (undefined: no such Bee, or one this version cannot serve).
   */
  lookup (id: string): Stepped<RegisteredBee | undefined> {
    return this.#builtins.get(id) ?? this.#published.get(id)
  }

  /** A Bee at hand, without a read: a built-in, or a published one loaded already (one just looked up, say). */
  loaded (id: string): RegisteredBee | undefined {
    return this.#builtins.get(id) ?? this.#published.peek(id)
  }

  /** Where published Bees are read from on first use (the catalog sync). */
  loadPublishedWith (loader: BeeLoader): void {
    this.#loader = loader
  }

  /** The catalog reached change sequence `version`; the published Bees in `ids` changed or went, and are read again on next use. */
  catalogChanged (version: number, ids: Iterable<string>): void {
    for (const id of ids) this.#published.evict(id)
    if (version === this.#catalogVersion) return
    this.#catalogVersion = version
    this.#notify()
  }

  /** Calls `listener` after every change (a door announcing it, say); returns what unsubscribes it. */
  onChange (listener: () => void): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  #builtinChanged (): void {
    this.#builtinChanges++
    this.#notify()
  }

  #notify (): void {
    for (const listener of this.#listeners) listener()
  }
}
