import type { BuiltinState, CatalogRepository, StoredBee } from '../ledger/catalog/catalog-repository.js'
import type { Logger } from '../logger.js'
import { fromMicros } from '../money.js'
import type { BeeDefinition, Registry } from '../registry.js'
import { checkPatterns } from './pattern-safety.js'
import { PROXY_ERRORS, type RemoteBeeProxy } from './proxy.js'
import { checkFormats } from './schema-checks.js'
import { checkZodConvertible } from './zod-compat.js'

export interface CatalogSyncOptions {
  registry: Registry
  store: CatalogRepository
  proxy: RemoteBeeProxy
  log: Logger
}

/**
 * Keeps the registry in line with the catalog in the database. Every change bumps one version
 * number; each instance polls it and reloads when it moves, so a change made on one instance is
 * served by all within a poll. The instance that made it refreshes at once.
 */
export class CatalogSync {
  readonly #options: CatalogSyncOptions
  readonly #loadedVersions = new Map<string, number>()
  /** Bee versions that could not be loaded, so each is reported once, not at every sync. */
  readonly #skippedVersions = new Map<string, number>()
  #seen = -1
  #running: Promise<void> | null = null

  constructor (options: CatalogSyncOptions) {
    this.#options = options
  }

  /** Brings the registry in line with the database: published Bees and built-in statuses. */
  async refresh (): Promise<void> {
    // One sync at a time; a caller arriving during one waits for it and then syncs again.
    while (this.#running !== null) await this.#running
    this.#running = this.#sync().finally(() => { this.#running = null })
    await this.#running
  }

  #definitionOf (bee: StoredBee): BeeDefinition {
    const { proxy } = this.#options
    return {
      id: bee.id,
      name: bee.name,
      description: bee.description,
      category: bee.category,
      colony: bee.colony,
      type: 'remote',
      ownerId: bee.ownerId,
      pricing: { type: bee.pricing.type, costPerCall: fromMicros(bee.pricing.costMicros), currency: bee.pricing.currency, ...(bee.pricing.plan === undefined ? {} : { plan: bee.pricing.plan }) },
      config: { primaryServices: bee.primaryServices, executionMode: 'remote', executionProvider: new URL(bee.endpoint).host },
      inputSchema: bee.inputSchema as never,
      outputSchema: bee.outputSchema as never,
      status: bee.status,
      statusMessage: bee.statusMessage,
      sunsetAt: bee.sunsetAt,
      lastUpdated: bee.updatedAt,
      errors: PROXY_ERRORS,
      callsPerMinute: bee.callsPerMinute,
      execute: (input, context) => proxy.call({
        beeId: bee.id,
        endpoint: bee.endpoint,
        signingSecret: bee.signingSecret,
        previousSigningSecret: bee.previousSigningSecret,
        previousUntil: Date.parse(bee.previousSecretExpiresAt ?? '')
      }, input, context)
    }
  }

  /**
   * Loads one stored Bee version. Publishing only stores what loads, but a Bee stored by an older
   * version may hold a schema this one refuses (one Ajv cannot compile, a pattern open to ReDoS, one
   * Zod would read differently): it is left out, with one warning, rather than failing the whole
   * catalog, the other Bees, the sync loop and the start of every instance. Its owner can still
   * change or remove it.
   */
  #load (bee: StoredBee): void {
    const { registry, log } = this.#options
    try {
      checkPatterns(bee.inputSchema, 'inputSchema')
      checkPatterns(bee.outputSchema, 'outputSchema')
      checkFormats(bee.inputSchema, 'inputSchema')
      checkFormats(bee.outputSchema, 'outputSchema')
      checkZodConvertible(bee.inputSchema, 'inputSchema')
      checkZodConvertible(bee.outputSchema, 'outputSchema')
      registry.register(this.#definitionOf(bee), { remote: true, replace: true })
      this.#loadedVersions.set(bee.id, bee.version)
      this.#skippedVersions.delete(bee.id)
    } catch (error) {
      // An older version that did load is not served in its place: its schema or endpoint is stale.
      if (registry.get(bee.id)?.remote === true) registry.remove(bee.id)
      this.#loadedVersions.delete(bee.id)
      this.#skippedVersions.set(bee.id, bee.version)
      log.warn({ beeId: bee.id, version: bee.version, reason: (error as Error).message }, 'published Bee skipped: it cannot be loaded')
    }
  }

  #apply (published: StoredBee[], states: BuiltinState[]): void {
    const { registry } = this.#options
    const loaded = this.#loadedVersions
    const skipped = this.#skippedVersions
    const present = new Set(published.map((bee) => bee.id))
    for (const id of loaded.keys()) {
      if (!present.has(id)) {
        registry.remove(id)
        loaded.delete(id)
      }
    }
    for (const id of skipped.keys()) if (!present.has(id)) skipped.delete(id)
    for (const bee of published) {
      // Validators are compiled once per Bee version; an unchanged Bee keeps its entry.
      if (loaded.get(bee.id) === bee.version || skipped.get(bee.id) === bee.version) continue
      this.#load(bee)
    }
    for (const state of states) {
      if (!loaded.has(state.id)) registry.setStatus(state.id, state.status, state.statusMessage, state.sunsetAt, state.updatedAt)
    }
  }

  async #sync (): Promise<void> {
    const { store } = this.#options
    const version = await store.version()
    if (version === this.#seen) return
    const [published, states] = await Promise.all([store.publishedBees(), store.builtinStates()])
    this.#apply(published, states)
    this.#seen = version
  }
}
