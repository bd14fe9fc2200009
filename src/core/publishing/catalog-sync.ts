import type { CatalogBee, CatalogChanges, CatalogRepository } from '../ledger/catalog/catalog-repository.js'
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
 * Keeps the registry in line with the catalog in the database. Every change bumps one version number
 * and stamps it on the rows it writes; an instance reads only the rows changed since the version it
 * last saw. It looks when another instance notifies it (PostgreSQL), at every poll (the fallback for a
 * notification lost), and at once after a change of its own.
 */
export class CatalogSync {
  readonly #options: CatalogSyncOptions
  readonly #loadedVersions = new Map<string, number>()
  /** Bee versions that could not be loaded, so each is reported once, not at every sync. */
  readonly #skippedVersions = new Map<string, number>()
  #seen = -1
  #running: Promise<void> | null = null
  /** Stops listening for other instances' notifications; null while not listening. */
  #unlisten: (() => Promise<void>) | null = null

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

  /**
   * Listens for changes made by other instances, when the database can tell; a connection lost is
   * reported once and listened again by the next `listen()` (each poll), the poll serving meanwhile.
   */
  async listen (): Promise<void> {
    if (this.#unlisten !== null) return
    const { store, log } = this.#options
    const dropped = (error: Error) => {
      log.warn({ err: error }, 'catalog notifications lost; polling until they are back')
      const unlisten = this.#unlisten
      this.#unlisten = null
      unlisten?.().catch(() => {})
    }
    try {
      this.#unlisten = await store.watch(() => {
        this.refresh().catch((error: unknown) => log.warn({ err: error }, 'catalog sync failed'))
      }, dropped)
    } catch (error) {
      log.warn({ err: error }, 'catalog notifications unavailable; polling')
    }
  }

  async close (): Promise<void> {
    const unlisten = this.#unlisten
    this.#unlisten = null
    await unlisten?.()
  }

  #definitionOf (bee: CatalogBee): BeeDefinition {
    const { proxy } = this.#options
    // Opened on the Bee's first call, not for every Bee at every change.
    let secrets: ReturnType<CatalogBee['secrets']> | undefined
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
      execute: (input, context) => {
        secrets ??= bee.secrets()
        return proxy.call({
          beeId: bee.id,
          endpoint: bee.endpoint,
          signingSecret: secrets.signingSecret,
          previousSigningSecret: secrets.previousSigningSecret,
          previousUntil: Date.parse(bee.previousSecretExpiresAt ?? '')
        }, input, context)
      }
    }
  }

  /**
   * Loads one stored Bee version. Publishing only stores what loads, but a Bee stored by an older
   * version may hold a schema this one refuses (one Ajv cannot compile, a pattern open to ReDoS, one
   * Zod would read differently): it is left out, with one warning, rather than failing the whole
   * catalog, the other Bees, the sync loop and the start of every instance. Its owner can still
   * change or remove it.
   */
  #load (bee: CatalogBee): void {
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

  #apply ({ bees, removed, states }: CatalogChanges): void {
    const { registry } = this.#options
    const loaded = this.#loadedVersions
    const skipped = this.#skippedVersions
    // Removals first: a Bee removed and published again under its id comes back in `bees`.
    for (const id of removed) {
      if (loaded.delete(id)) registry.remove(id)
      skipped.delete(id)
    }
    for (const bee of bees) {
      // Validators are compiled once per Bee version (on its first use); an unchanged Bee keeps its entry.
      if (loaded.get(bee.id) === bee.version || skipped.get(bee.id) === bee.version) continue
      this.#load(bee)
    }
    for (const state of states) {
      if (!loaded.has(state.id)) registry.setStatus(state.id, state.status, state.statusMessage, state.sunsetAt, state.updatedAt)
    }
  }

  async #sync (): Promise<void> {
    const { store } = this.#options
    if (await store.version() === this.#seen) return
    const changes = await store.changesSince(this.#seen)
    this.#apply(changes)
    this.#seen = changes.version
  }
}
