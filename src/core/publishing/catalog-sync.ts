import type { CatalogChanges, CatalogRepository } from '../ledger/catalog/catalog-repository.js'
import type { Logger } from '../logger.js'
import type { Registry } from '../registry.js'
import type { LoadedBee } from '../bee-cache.js'
import type { RemoteBeeProxy } from './proxy.js'
import { publishedBee } from './published-bee.js'

/** A change of the catalog this instance committed: the version it took, and the published Bees it wrote. */
export interface OwnChange {
  version: number
  ids: readonly string[]
}

export interface CatalogSyncOptions {
  registry: Registry
  store: CatalogRepository
  proxy: RemoteBeeProxy
  log: Logger
  /** VERSION_SUNSET_DAYS (default 90): how long an older major is served once a new major replaced it. */
  sunsetDays?: number
  /** The listener's connection was closed by the database (a restart, a terminated session); unset, it is logged. */
  onConnectionLost?: (error: Error) => void
}

/** The first wait before listening again after the listener's connection failed, doubled at each failure up to the longest. */
const FIRST_RELISTEN_MS = 100
const LONGEST_RELISTEN_MS = 5000

/**
 * Keeps the registry in line with the catalog in the database, without ever reading the whole of it. Published
 * Bees are read one at a time, on first use (the registry's cache). Every change bumps one version number and
 * stamps it on the rows it writes; an instance reads only the ids changed since the version it last saw, and
 * forgets those it had loaded. At start it reads the version and the built-ins' states only. It looks when
 * another instance notifies it (PostgreSQL), at every poll (the fallback for a notification lost), and at once
 * after a change of its own, which it mostly applies without a read (see refresh).
 */
export class CatalogSync {
  readonly #options: CatalogSyncOptions
  #seen = -1
  #running: Promise<void> | null = null
  /** The sync every caller arriving during `#running` waits for; null while none is. */
  #next: Promise<void> | null = null
  /** The least version `#next` must reach for its callers (Infinity: whatever the database holds then). */
  #nextNeeds = -1
  /** Stops listening for other instances' notifications; null while not listening. */
  #unlisten: (() => Promise<void>) | null = null
  /** The listener's connection being opened; a caller that comes meanwhile waits for it rather than open another. */
  #connecting: Promise<void> | null = null
  /** The next attempt to listen again, after a failure; undefined while none is due. */
  #relisten: NodeJS.Timeout | undefined
  #relistenMs = FIRST_RELISTEN_MS
  #closed = false

  constructor (options: CatalogSyncOptions) {
    this.#options = options
    options.registry.loadPublishedWith((id) => this.#load(id))
  }

  /**
   * Brings the registry in line with the database: published Bees and built-in statuses. `own`: a change this
   * instance has just committed (its version and the published Bees it wrote), which is all the caller needs: when it
   * is the version after the last one seen, nothing else can have changed in between (changes commit in version
   * order), so it is applied without a read; otherwise a sync reads up to it, or one under way has.
   */
  async refresh (own?: OwnChange): Promise<void> {
    if (own === undefined) return await this.#syncUpTo(Infinity)
    if (own.version === this.#seen + 1) {
      this.#apply({ version: own.version, changed: [...own.ids], removed: [], states: [] })
      this.#seen = own.version
      return
    }
    await this.#syncUpTo(own.version)
  }

  /** A sync, unless the registry has seen `upTo` already (a notification of a change it made or read). */
  async #syncUpTo (upTo: number): Promise<void> {
    if (this.#seen >= upTo) return
    if (this.#running === null) {
      this.#running = this.#sync().finally(() => { this.#running = null })
      return await this.#running
    }
    // One sync at a time. The one under way may have read before the caller's change: the caller needs the next,
    // which starts when it ends and serves every caller arriving meanwhile (8 publishers at once wait for one more
    // sync, not for 8 in a row), unless the one under way brought what they all need.
    this.#nextNeeds = Math.max(this.#nextNeeds, upTo)
    this.#next ??= this.#running.catch(() => {}).then(async () => {
      const needs = this.#nextNeeds
      this.#next = null
      this.#nextNeeds = -1
      await this.#syncUpTo(needs)
    })
    await this.#next
  }

  /**
   * Listens for changes made by other instances, when the database can tell. A connection that fails or is lost is
   * opened again by itself, after 100 ms, doubling to at most 5 s while it fails (the poll serves meanwhile), and the
   * registry then catches up on what it missed.
   */
  async listen (): Promise<void> {
    if (this.#unlisten !== null || this.#closed) return
    // A connection slower than a second call would otherwise be opened twice, and the first one, overwritten, never closed.
    this.#connecting ??= this.#connect().finally(() => { this.#connecting = null })
    await this.#connecting
  }

  async #connect (): Promise<void> {
    const { store, log, onConnectionLost } = this.#options
    let lost = false
    const dropped = (error: Error) => {
      if (lost) return
      lost = true
      if (onConnectionLost === undefined) log.warn({ err: error }, 'catalog notifications lost; polling until they are back')
      else onConnectionLost(error)
      const unlisten = this.#unlisten
      this.#unlisten = null
      unlisten?.().catch(() => {})
      this.#listenLater()
    }
    try {
      const unlisten = await store.watch((version) => {
        // The notification of a change of this instance's own often arrives with the answer to its commit, and before
        // the change's caller applies it (see refresh): left a turn of the event loop, it finds it applied, unread.
        setImmediate(() => {
          this.#syncUpTo(version ?? Infinity).catch((error: unknown) => log.warn({ err: error }, 'catalog sync failed'))
        })
      }, dropped)
      // Closed while connecting (a listen racing the app's close): the connection would outlive the app.
      if (this.#closed) await unlisten()
      else this.#unlisten = unlisten
      this.#relistenMs = FIRST_RELISTEN_MS
    } catch (error) {
      log.warn({ err: error }, 'catalog notifications unavailable; polling until they are back')
      this.#listenLater()
    }
  }

  #listenLater (): void {
    if (this.#closed || this.#relisten !== undefined) return
    this.#relisten = setTimeout(() => {
      this.#relisten = undefined
      // What changed while nobody listened is read once listening again; a failure is the next attempt's to report.
      this.listen().then(async () => { if (this.#unlisten !== null) await this.refresh() }).catch(() => {})
    }, this.#relistenMs)
    this.#relisten.unref()
    this.#relistenMs = Math.min(this.#relistenMs * 2, LONGEST_RELISTEN_MS)
  }

  async close (): Promise<void> {
    this.#closed = true
    clearTimeout(this.#relisten)
    // A connection being opened is closed by #connect once it is open: wait for that, so none outlives the close.
    await this.#connecting
    const unlisten = this.#unlisten
    this.#unlisten = null
    await unlisten?.()
  }

  /** One published Bee, read when first used; one this version cannot serve is reported once (the cache keeps its `false`). */
  async #load (id: string): Promise<LoadedBee | null> {
    const { store, proxy, log, sunsetDays = 90 } = this.#options
    let bee: Awaited<ReturnType<CatalogRepository['catalogBee']>>
    try {
      bee = await store.catalogBee(id)
    } catch (error) {
      // A row whose stored JSON does not parse (written by hand, or damaged) is that Bee's fault alone.
      if (!(error instanceof SyntaxError)) throw error
      log.warn({ beeId: id, reason: error.message }, 'published Bee skipped: its stored row cannot be read')
      return false
    }
    if (bee === null) return null
    try {
      return publishedBee(bee, proxy, { read: () => store.earlierVersions(id), sunsetDays })
    } catch (error) {
      log.warn({ beeId: bee.id, version: bee.version, reason: (error as Error).message }, 'published Bee skipped: it cannot be loaded')
      return false
    }
  }

  #apply ({ version, changed, removed, states }: CatalogChanges): void {
    const { registry } = this.#options
    for (const state of states) registry.setStatus(state.id, state.status, state.statusMessage, state.sunsetAt, state.updatedAt)
    registry.catalogChanged(version, [...removed, ...changed])
  }

  async #sync (): Promise<void> {
    const { store } = this.#options
    if (this.#seen === -1) {
      // At start: nothing is loaded yet, so only the version and the built-ins' states are read. A state
      // changed between the two reads has a later sequence and is read again by the next sync.
      const version = await store.version()
      this.#apply({ version, changed: [], removed: [], states: await store.builtinStates() })
      this.#seen = version
      return
    }
    const changes = await store.changesSince(this.#seen)
    // A change of this instance's own may have been applied meanwhile, past what this read saw (all of which was
    // seen then): the registry never goes back to an earlier version.
    if (changes.version <= this.#seen) return
    this.#apply(changes)
    this.#seen = changes.version
  }
}
