import fp from 'fastify-plugin'
import type { BuiltinState, StoredBee } from '../src/core/ledger/catalog/catalog-repository.js'
import { fromMicros } from '../src/core/money.js'
import { EgressPolicy } from '../src/core/publishing/egress.js'
import { checkFormats, checkPatterns } from '../src/core/publishing/json-schema.js'
import { RemoteBeeProxy } from '../src/core/publishing/proxy.js'
import type { BeeDefinition } from '../src/core/registry.js'

declare module 'fastify' {
  interface FastifyInstance {
    catalog: {
      egress: EgressPolicy
      /** Brings the registry in line with the database: published Bees and built-in statuses. */
      refresh (): Promise<void>
    }
  }
}

/**
 * Keeps the registry in line with the catalog in the database. Every change bumps one version
 * number; each instance polls it (CATALOG_SYNC_MS) and reloads when it moves, so a change made on
 * one instance is served by all within about a second. The instance that made it refreshes at once.
 */
export default fp(async (fastify) => {
  const { config, registry, ledger } = fastify
  const egress = new EgressPolicy(config.EGRESS_ALLOWLIST.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''))
  const proxy = new RemoteBeeProxy({ policy: egress, timeoutMs: config.REMOTE_BEE_TIMEOUT_MS, maxResponseBytes: config.REMOTE_BEE_MAX_RESPONSE_BYTES })
  const loadedVersions = new Map<string, number>()
  /** Bee versions that could not be loaded, so each is reported once, not at every sync. */
  const skippedVersions = new Map<string, number>()
  let seen = -1
  let running: Promise<void> | null = null

  const definitionOf = (bee: StoredBee): BeeDefinition => ({
    id: bee.id,
    name: bee.name,
    description: bee.description,
    category: bee.category,
    colony: bee.colony,
    type: 'remote',
    ownerId: bee.ownerId,
    pricing: { type: bee.pricing.type, costPerCall: fromMicros(bee.pricing.costMicros), currency: bee.pricing.currency },
    config: { primaryServices: bee.primaryServices, executionMode: 'remote', executionProvider: new URL(bee.endpoint).host },
    inputSchema: bee.inputSchema as never,
    outputSchema: bee.outputSchema as never,
    status: bee.status,
    statusMessage: bee.statusMessage,
    sunsetAt: bee.sunsetAt,
    lastUpdated: bee.updatedAt,
    execute: (input, context) => proxy.call({
      beeId: bee.id,
      endpoint: bee.endpoint,
      signingSecret: bee.signingSecret,
      previousSigningSecret: bee.previousSigningSecret,
      previousUntil: Date.parse(bee.previousSecretExpiresAt ?? '')
    }, input, context)
  })

  /**
   * Loads one stored Bee version. Publishing only stores what loads, but a Bee stored by an older
   * version may hold a schema this one refuses (one Ajv cannot compile, or a pattern open to ReDoS):
   * it is left out, with one warning, rather than failing the whole catalog, the other Bees, the
   * sync loop and the start of every instance. Its owner can still change or remove it.
   */
  const load = (bee: StoredBee) => {
    try {
      checkPatterns(bee.inputSchema, 'inputSchema')
      checkPatterns(bee.outputSchema, 'outputSchema')
      checkFormats(bee.inputSchema, 'inputSchema')
      checkFormats(bee.outputSchema, 'outputSchema')
      registry.register(definitionOf(bee), { remote: true, replace: true })
      loadedVersions.set(bee.id, bee.version)
      skippedVersions.delete(bee.id)
    } catch (error) {
      // An older version that did load is not served in its place: its schema or endpoint is stale.
      if (registry.get(bee.id)?.remote === true) registry.remove(bee.id)
      loadedVersions.delete(bee.id)
      skippedVersions.set(bee.id, bee.version)
      fastify.log.warn({ beeId: bee.id, version: bee.version, reason: (error as Error).message }, 'published Bee skipped: it cannot be loaded')
    }
  }

  const apply = (published: StoredBee[], states: BuiltinState[]) => {
    const present = new Set(published.map((bee) => bee.id))
    for (const id of loadedVersions.keys()) {
      if (!present.has(id)) {
        registry.remove(id)
        loadedVersions.delete(id)
      }
    }
    for (const id of skippedVersions.keys()) if (!present.has(id)) skippedVersions.delete(id)
    for (const bee of published) {
      // Validators are compiled once per Bee version; an unchanged Bee keeps its entry.
      if (loadedVersions.get(bee.id) === bee.version || skippedVersions.get(bee.id) === bee.version) continue
      load(bee)
    }
    for (const state of states) {
      if (!loadedVersions.has(state.id)) registry.setStatus(state.id, state.status, state.statusMessage, state.sunsetAt, state.updatedAt)
    }
  }

  const sync = async () => {
    const version = await ledger.catalog.version()
    if (version === seen) return
    const [published, states] = await Promise.all([ledger.catalog.publishedBees(), ledger.catalog.builtinStates()])
    apply(published, states)
    seen = version
  }

  fastify.decorate('catalog', {
    egress,
    refresh: async () => {
      // One sync at a time; a caller arriving during one waits for it and then syncs again.
      // eslint-disable-next-line no-unmodified-loop-condition -- `running` is reset by the sync that ends while we wait
      while (running !== null) await running
      running = sync().finally(() => { running = null })
      await running
    }
  })

  fastify.addHook('onReady', async () => { await fastify.catalog.refresh() })
  const poll = setInterval(() => {
    fastify.catalog.refresh().catch((error: unknown) => fastify.log.warn({ err: error }, 'catalog sync failed'))
  }, config.CATALOG_SYNC_MS)
  poll.unref()
  fastify.addHook('onClose', async () => {
    clearInterval(poll)
    await proxy.close()
  })
}, { name: 'catalog', dependencies: ['config', 'ledger', 'registry'] })
