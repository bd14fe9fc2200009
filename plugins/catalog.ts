import fp from 'fastify-plugin'
import { CatalogListing } from '../src/core/catalog-listing.js'
import { commaList } from '../src/core/comma-list.js'
import { CatalogSync, type OwnChange } from '../src/core/publishing/catalog-sync.js'
import { EgressPolicy } from '../src/core/publishing/egress.js'
import { McpImport } from '../src/core/publishing/mcp-import.js'
import { McpUpstreamWatch } from '../src/core/publishing/mcp-watch.js'
import { OpenApiImport } from '../src/core/publishing/openapi-import.js'
import { RemoteBeeProxy } from '../src/core/publishing/proxy.js'
import { PublishingService } from '../src/core/publishing/service.js'
import { type CatalogSearch, catalogSearch } from '../src/core/search.js'

declare module 'fastify' {
  interface FastifyInstance {
    catalog: {
      egress: EgressPolicy
      /**
       * Brings the registry in line with the database: published Bees and built-in statuses; after a change of this
       * instance's own, up to that change (see CatalogSync.refresh).
       */
      refresh (own?: OwnChange): Promise<void>
      /** The catalog's search (the database's full-text engine), for every door. */
      search: CatalogSearch
      /** The active Bees a page at a time, from the database, merged with the built-ins. */
      listing: CatalogListing
    }
    /** Publishing's use cases: publish, change and retire a Bee. */
    publishing: PublishingService
    /** Importing an OpenAPI document's operations as Bees: preview, then apply. */
    imports: OpenApiImport
    /** Importing an MCP server's tools as Bees, and keeping them in line with the server. */
    mcpImports: { tools: McpImport, watch: McpUpstreamWatch }
  }
}

/**
 * Wires the catalog sync: at start, when another instance notifies a change (PostgreSQL), every
 * CATALOG_SYNC_MS (the fallback), and at once after a change on this instance.
 */
export default fp(async (fastify) => {
  const { config, registry, ledger } = fastify
  const egress = new EgressPolicy(commaList(config.EGRESS_ALLOWLIST))
  const proxy = new RemoteBeeProxy({
    policy: egress,
    timeoutMs: config.REMOTE_BEE_TIMEOUT_MS,
    maxResponseBytes: config.REMOTE_BEE_MAX_RESPONSE_BYTES,
    // Sessions open once the app is ready (McpUpstreamWatch.start), long after the watch below is made.
    onToolsChanged: (serverUrl) => { watch.changed(serverUrl) }
  })
  // Its failures while the database is away count toward the ledger's outage, logged there once.
  const log = fastify.storeHealth.logger(fastify.log)
  const sync = new CatalogSync({
    registry,
    store: ledger.catalog,
    proxy,
    log,
    sunsetDays: config.VERSION_SUNSET_DAYS,
    onConnectionLost: (error) => { fastify.storeHealth.connectionLost(error) }
  })
  const refresh = async (own?: OwnChange) => await sync.refresh(own)
  fastify.decorate('catalog', { egress, refresh, search: catalogSearch(ledger.catalog), listing: new CatalogListing(registry, ledger.catalog, fastify.log) })
  const publishing = new PublishingService({
    registry,
    store: ledger.catalog,
    egress,
    refresh,
    currency: config.PRICE_CURRENCY,
    maxBeesPerPublisher: config.PUBLISHER_MAX_BEES,
    maxDocumentBytes: config.PUBLISHER_MAX_OPENAPI_BYTES,
    runMaxSeconds: config.RUN_MAX_SECONDS
  })
  fastify.decorate('publishing', publishing)
  fastify.decorate('imports', new OpenApiImport({ publishing, store: ledger.catalog, registry, egress, proxy }))
  const watch = new McpUpstreamWatch({ store: ledger.catalog, sessions: proxy.mcp, publishing, log })
  fastify.decorate('mcpImports', { tools: new McpImport({ publishing, store: ledger.catalog, registry, egress, sessions: proxy.mcp }), watch })

  fastify.addHook('onReady', async () => {
    // The built-in Bees live in code, so each start indexes their text.
    await ledger.catalog.indexBuiltins(registry.builtins().map((bee) => bee.record))
    await sync.listen()
    await sync.refresh()
    watch.start(config.MCP_REREAD_SECONDS)
  })
  // The listener opens its connection again by itself when it loses it (CatalogSync.listen).
  const poll = setInterval(() => {
    sync.refresh().catch((error: unknown) => log.warn({ err: error }, 'catalog sync failed'))
  }, config.CATALOG_SYNC_MS)
  poll.unref()
  fastify.addHook('onClose', async () => {
    clearInterval(poll)
    watch.close()
    await sync.close()
    await proxy.close()
  })
}, { name: 'catalog', dependencies: ['config', 'ledger', 'registry'] })
