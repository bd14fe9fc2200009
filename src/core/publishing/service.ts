import { isDeepStrictEqual } from 'node:util'
import semverLib from 'semver'
import type { Static } from 'typebox'
import { beeNotFound, failure } from '../errors.js'
import type { CatalogRepository, ChangedBee, StoredBee } from '../ledger/catalog/catalog-repository.js'
import { newSecret } from '../ledger/secrets.js'
import { owned } from '../ownership.js'
import { DEFAULT_VERSION } from '../registered-bee.js'
import type { Caller } from '../principal.js'
import type { RegisteredBee, Registry } from '../registry.js'
import type { BeeStatus, ManagedBee, PublishedBee } from '../schemas.js'
import { checkDocumentShare, type ExecutionChoice, executionOf, keptSchema, priceOf, type PricingChoice, refused, schemaOf } from './bee-fields.js'
import type { OwnChange } from './catalog-sync.js'
import type { EgressPolicy } from './egress.js'
import { nextStatus } from './lifecycle.js'
import type { UpstreamMapping } from './mcp-tool-mapping.js'
import { managed, managedPublished } from './managed-bee.js'
import { toInputSchema, toOutputSchema } from './schema-conversion.js'
import { breakingChanges } from './schema-diff.js'
import { checkedVersion, nextVersion } from './versions.js'

/** The fields a publisher gives a Bee, as published. */
interface BeeFields {
  name: string
  description: string
  category: string
  colony: string
  endpoint: string
  /** JSON Schema (draft-07) objects, converted and checked here. */
  inputSchema: object
  outputSchema: object
  pricing: PricingChoice
  config: { primaryServices?: string[] | undefined } & ExecutionChoice
}

/** A Bee to publish. */
export interface Publication extends Omit<BeeFields, 'colony' | 'config'> {
  id: string
  /** Its first version (default 1.0.0). */
  version?: string | undefined
  colony?: string | undefined
  config?: BeeFields['config'] | undefined
  rateLimit?: { callsPerMinute: number } | undefined
  /** An imported OpenAPI operation's or MCP tool's: how its calls reach the upstream, and the upstream's credential. */
  upstream?: { mapping: UpstreamMapping, credential: string | null } | undefined
}

/** An imported MCP tool's Bee as the tool now is upstream (see followUpstream). */
export interface UpstreamChange {
  /** The tool is gone: the Bee becomes inactive. */
  gone: boolean
  description?: string | undefined
  inputSchema?: object | undefined
  outputSchema?: object | undefined
  mapping?: UpstreamMapping | undefined
}

/** The statusMessage of a Bee whose tool is gone upstream: it comes back active when the tool does. */
export const TOOL_GONE = 'Its tool is no longer listed by its MCP server.'

/** The fields to change (absent: kept); status changes follow the lifecycle. */
export interface BeeChange extends Partial<BeeFields> {
  /** The version the change makes (see nextVersion); absent: the next minor or patch, when the change makes one. */
  version?: string | undefined
  rateLimit?: { callsPerMinute: number } | null | undefined
  status?: BeeStatus | undefined
  statusMessage?: string | null | undefined
  sunsetAt?: string | null | undefined
}

export interface PublishingOptions {
  registry: Registry
  store: CatalogRepository
  egress: Pick<EgressPolicy, 'check'>
  /** Brings this instance's registry in line after a change (CatalogSync.refresh). */
  refresh (own?: OwnChange): Promise<void>
  /** PRICE_CURRENCY: a price's currency when none is stated. */
  currency: string
  /** PUBLISHER_MAX_BEES. */
  maxBeesPerPublisher: number
  /** PUBLISHER_MAX_OPENAPI_BYTES. */
  maxDocumentBytes: number
  /** RUN_MAX_SECONDS: the longest run an async Bee may declare. */
  runMaxSeconds: number
}

const STATUS_FIELDS = new Set(['status', 'statusMessage', 'sunsetAt'])

/**
 * Publishers register, change and retire their Bees; the operator manages all of them, and the built-ins' status.
 * Someone else's Bee is not found, as if it did not exist.
 */
export class PublishingService {
  readonly #options: PublishingOptions

  constructor (options: PublishingOptions) {
    this.#options = options
  }

  /** Publishes a Bee of the caller's, a publisher; the answer holds its signing secret, shown this once. */
  async publish ({ principal, log }: Caller, bee: Publication): Promise<Static<typeof PublishedBee>> {
    const { store, currency, maxBeesPerPublisher, maxDocumentBytes } = this.#options
    if (principal.kind !== 'publisher') {
      throw failure('PUBLISHER_REQUIRED', 'Bees are published with a publisher key: issue one with POST /api/publishers.')
    }
    if (this.#isBuiltIn(bee.id)) throw failure('BEE_ID_RESERVED', `"${bee.id}" is a built-in Bee's id.`)
    const inputSchema = schemaOf(() => toInputSchema(bee.inputSchema))
    const outputSchema = schemaOf(() => toOutputSchema(bee.outputSchema))
    const pricing = priceOf(bee.pricing, currency)
    await this.#checkEndpoint(bee.endpoint)
    const now = new Date().toISOString()
    const stored: StoredBee = {
      id: bee.id,
      ownerId: principal.publisher.id,
      ownerEmail: principal.publisher.email,
      name: bee.name,
      description: bee.description,
      category: bee.category,
      colony: bee.colony ?? 'community',
      endpoint: bee.endpoint,
      inputSchema,
      outputSchema,
      primaryServices: bee.config?.primaryServices ?? [],
      pricing,
      status: 'active',
      statusMessage: null,
      sunsetAt: null,
      callsPerMinute: bee.rateLimit?.callsPerMinute ?? null,
      execution: executionOf(bee.config ?? {}, pricing, this.#options.runMaxSeconds),
      signingSecret: newSecret('bsk'),
      upstreamMapping: bee.upstream?.mapping ?? null,
      upstreamCredential: bee.upstream?.credential ?? null,
      version: 1,
      semver: bee.version === undefined ? DEFAULT_VERSION : checkedVersion(bee.version),
      createdAt: now,
      updatedAt: now
    }
    checkDocumentShare(stored, maxDocumentBytes)
    const inserted = await store.insertBeeWithinQuota(stored, maxBeesPerPublisher)
    if (inserted.outcome === 'taken') throw failure('BEE_ID_TAKEN', `A Bee with the id "${bee.id}" exists already.`)
    if (inserted.outcome === 'over-quota') {
      throw failure('PUBLISHER_BEE_LIMIT', `You have ${maxBeesPerPublisher} Bees, as many as a publisher may have ` +
        '(PUBLISHER_MAX_BEES): remove one before publishing another.')
    }
    await this.#options.refresh({ version: inserted.version, ids: [stored.id] })
    log.info({ beeId: stored.id, ownerId: stored.ownerId }, 'Bee published')
    return { ...managedPublished(stored), signingSecret: stored.signingSecret }
  }

  /** Changes a Bee's fields and status; of a built-in Bee, only the operator, and only its status. */
  async update ({ principal, log }: Caller, id: string, change: BeeChange): Promise<Static<typeof ManagedBee>> {
    const { registry, store, currency, maxDocumentBytes } = this.#options
    const byAdmin = principal.kind === 'admin'
    const now = new Date().toISOString()

    if (this.#isBuiltIn(id)) {
      if (!byAdmin) throw failure('BEE_RESERVED', `${id} is a built-in Bee: only the operator may change its status.`)
      const other = Object.keys(change).find((field) => !STATUS_FIELDS.has(field))
      if (other !== undefined) throw failure('BEE_RESERVED', `${id} is a built-in Bee: only its status can change, not ${other}.`)
      const bee = registry.builtin(id) as RegisteredBee
      const next = nextStatus(bee.record, change, true)
      await store.setBuiltinState({ id, ...next, updatedAt: now })
      await this.#options.refresh()
      const changed = registry.builtin(id) as RegisteredBee
      return managed(changed.record, undefined, changed.callsPerMinute)
    }

    // Its signing secrets stay sealed: no change writes them (see ChangedBee).
    const stored = owned(principal, await store.catalogBee(id), () => beeNotFound(id))
    const next = nextStatus(stored, change, byAdmin)
    const mapped = (['endpoint', 'inputSchema', 'outputSchema'] as const).find((field) => change[field] !== undefined)
    if (stored.upstreamMapping != null && mapped !== undefined) {
      // Its request mapping was made from those, so changing one alone would send calls the upstream does not expect.
      throw failure('IMPORTED_BEE_FIELD',
        `${id} was imported from an OpenAPI operation or MCP tool: its ${mapped} follows it. Remove it and import it again.`)
    }
    if (change.endpoint !== undefined) await this.#checkEndpoint(change.endpoint)
    const { secrets: _sealed, ...kept } = stored
    const versioned = {
      endpoint: change.endpoint ?? stored.endpoint,
      inputSchema: change.inputSchema === undefined ? keptSchema(stored.inputSchema, 'inputSchema') : schemaOf(() => toInputSchema(change.inputSchema)),
      outputSchema: change.outputSchema === undefined ? keptSchema(stored.outputSchema, 'outputSchema') : schemaOf(() => toOutputSchema(change.outputSchema))
    }
    const pricing = change.pricing === undefined ? stored.pricing : priceOf(change.pricing, currency)
    const updated: ChangedBee = {
      ...kept,
      ...next,
      name: change.name ?? stored.name,
      description: change.description ?? stored.description,
      category: change.category ?? stored.category,
      colony: change.colony ?? stored.colony,
      ...versioned,
      // A new version keeps the one it replaces, for callers pinned to it (see CatalogRepository.updateBee).
      semver: nextVersion(stored, versioned, change.version),
      pricing,
      execution: executionOf(change.config ?? {}, pricing, this.#options.runMaxSeconds, stored.execution),
      primaryServices: change.config?.primaryServices ?? stored.primaryServices,
      callsPerMinute: change.rateLimit === undefined ? stored.callsPerMinute : change.rateLimit?.callsPerMinute ?? null,
      version: stored.version + 1,
      updatedAt: now
    }
    checkDocumentShare(updated, maxDocumentBytes)
    await this.#write(updated, stored.semver)
    log.info({ beeId: id, status: updated.status, version: updated.semver }, 'Bee changed')
    return managedPublished(updated)
  }

  /**
   * An imported MCP tool's Bee follows its tool, as a re-read of the server finds it: gone, the Bee becomes inactive
   * (and active again when the tool is back); changed, the Bee gets a new version, a new major when the change breaks
   * its callers. No caller asks for this, so no ownership is checked. False when nothing changed.
   */
  async followUpstream (log: Caller['log'], id: string, change: UpstreamChange): Promise<boolean> {
    const stored = await this.#options.store.catalogBee(id)
    if (stored === null) return false
    const { secrets: _sealed, ...kept } = stored
    const wasGone = stored.status === 'inactive' && stored.statusMessage === TOOL_GONE
    const status = change.gone
      ? (stored.status === 'active' ? { status: 'inactive' as const, statusMessage: TOOL_GONE, sunsetAt: null } : null)
      : (wasGone ? { status: 'active' as const, statusMessage: null, sunsetAt: null } : null)
    const versioned = {
      endpoint: stored.endpoint,
      inputSchema: change.inputSchema === undefined ? stored.inputSchema : schemaOf(() => toInputSchema(change.inputSchema)),
      outputSchema: change.outputSchema === undefined ? stored.outputSchema : schemaOf(() => toOutputSchema(change.outputSchema))
    }
    // A breaking change is the upstream's, already made: it is published as the next major rather than refused.
    const breaks = breakingChanges(stored, versioned).length > 0
    const semver = nextVersion(stored, versioned, breaks ? `${semverLib.major(stored.semver) + 1}.0.0` : undefined)
    const description = change.description ?? stored.description
    const mapping = change.mapping ?? stored.upstreamMapping
    if (status === null && semver === stored.semver && description === stored.description && isDeepStrictEqual(mapping, stored.upstreamMapping)) return false
    const updated: ChangedBee = {
      ...kept,
      ...(status ?? {}),
      ...versioned,
      description,
      upstreamMapping: mapping,
      semver,
      version: stored.version + 1,
      updatedAt: new Date().toISOString()
    }
    checkDocumentShare(updated, this.#options.maxDocumentBytes)
    await this.#write(updated, stored.semver)
    log.info({ beeId: id, status: updated.status, version: semver }, 'imported Bee follows its upstream')
    return true
  }

  /** Stores a change (keeping the version it replaces), and brings the registry in line. */
  async #write (updated: ChangedBee, replaces: string): Promise<void> {
    const version = await this.#options.store.updateBee(updated, replaces)
    // Removed since it was read: there is nothing to show changed.
    if (version === null) throw beeNotFound(updated.id)
    await this.#options.refresh({ version, ids: [updated.id] })
  }

  /** Removes a published Bee; a built-in one stays (its status can be set instead). */
  async retire ({ principal, log }: Caller, id: string): Promise<void> {
    const { store } = this.#options
    if (this.#isBuiltIn(id)) throw failure('BEE_RESERVED', `${id} is a built-in Bee and cannot be removed; set its status instead.`)
    owned(principal, await store.catalogBee(id), () => beeNotFound(id))
    await store.deleteBee(id)
    await this.#options.refresh()
    log.info({ beeId: id }, 'Bee removed')
  }

  #isBuiltIn (id: string): boolean {
    return this.#options.registry.builtin(id) !== undefined
  }

  async #checkEndpoint (endpoint: string): Promise<void> {
    const problem = await this.#options.egress.check(endpoint)
    if (problem !== null) throw refused('ENDPOINT_FORBIDDEN', problem)
  }
}
