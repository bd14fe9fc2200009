import semver from 'semver'
import type { BeeDefinition } from '../bee.js'
import type { CatalogBee, EarlierVersion, StoredExecution } from '../ledger/catalog/catalog-repository.js'
import { fromMicros } from '../money.js'
import { recordOf, registeredBee, type BeeDescription } from '../registered-bee.js'
import type { RegisteredBee } from '../registry.js'
import type { BeeRecord } from '../schemas.js'
import type { StatusState } from './lifecycle.js'
import { checkPatterns } from './pattern-safety.js'
import { isMcpTool } from './mcp-tool-mapping.js'
import { PROXY_ERRORS, type RemoteBeeProxy } from './proxy.js'
import { checkFormats, knownLoadable } from './schema-checks.js'
import { checkZodConvertible } from './zod-compat.js'

/** The record's view of how the Bee's calls run: the limit of a run, and a stream's event schema, only where they apply. */
function executionConfig (execution: StoredExecution | undefined): Pick<BeeRecord['config'], 'executionMode' | 'maxRunSeconds' | 'eventSchema'> {
  if (execution === undefined || execution.mode === 'sync') return { executionMode: 'sync' }
  return {
    executionMode: execution.mode,
    ...(execution.maxRunSeconds === null ? {} : { maxRunSeconds: execution.maxRunSeconds }),
    ...(execution.eventSchema === null ? {} : { eventSchema: execution.eventSchema })
  }
}

/** A stored Bee as its author declared it, without what runs it. */
function describe (bee: Omit<CatalogBee, 'secrets'>): BeeDescription {
  return {
    id: bee.id,
    name: bee.name,
    description: bee.description,
    category: bee.category,
    colony: bee.colony,
    version: bee.semver,
    type: 'remote',
    ownerId: bee.ownerId,
    pricing: {
      type: bee.pricing.type,
      costPerCall: fromMicros(bee.pricing.costMicros),
      currency: bee.pricing.currency,
      ...(bee.pricing.plan === undefined ? {} : { plan: bee.pricing.plan })
    },
    config: { primaryServices: bee.primaryServices, executionProvider: new URL(bee.endpoint).host, ...executionConfig(bee.execution) },
    inputSchema: bee.inputSchema as never,
    outputSchema: bee.outputSchema as never,
    status: bee.status,
    statusMessage: bee.statusMessage,
    sunsetAt: bee.sunsetAt,
    lastUpdated: bee.updatedAt,
    errors: PROXY_ERRORS,
    callsPerMinute: bee.callsPerMinute
  }
}

/** A stored Bee's public record, as a listing shows it: nothing compiled, no secret opened. */
export const publishedRecord = (bee: Omit<CatalogBee, 'secrets'>): BeeRecord => recordOf(describe(bee))

/** Refuses a stored schema this version would not publish (see publishedBee). */
function checkStored (inputSchema: CatalogBee['inputSchema'], outputSchema: CatalogBee['outputSchema']): void {
  // A schema this process has seen pass every check (at its publish, say) passes these, a subset, again.
  const unchecked = ([['inputSchema', inputSchema], ['outputSchema', outputSchema]] as const).filter(([, schema]) => !knownLoadable(schema))
  for (const [where, schema] of unchecked) checkPatterns(schema, where)
  for (const [where, schema] of unchecked) checkFormats(schema, where)
  for (const [where, schema] of unchecked) checkZodConvertible(schema, where)
}

/**
 * A stored Bee ready to run through the proxy. Publishing only stores what loads, but a Bee stored by an older
 * version may hold a schema this one refuses (one Ajv cannot compile, a pattern open to ReDoS, one Zod would
 * read differently): that throws, and the Bee is not served, while its owner can still change or remove it.
 * `earlier` reads the Bee's earlier versions, for calls pinned to one (see RegisteredBee.earlierVersions).
 */
export function publishedBee (bee: CatalogBee, proxy: RemoteBeeProxy, earlier?: EarlierVersions): RegisteredBee {
  checkStored(bee.inputSchema, bee.outputSchema)
  // Opened on the Bee's first call, not when it is loaded.
  let secrets: ReturnType<CatalogBee['secrets']> | undefined
  /** Each version runs at its own endpoint, and tells it which version it is called as. */
  const runAt = (endpoint: string, version: string): BeeDefinition['execute'] => (input, context) => {
    secrets ??= bee.secrets()
    // An imported operation's Bee keeps one mapping: a PATCH may not change its endpoint or schemas (IMPORTED_BEE_FIELD).
    const mapping = bee.upstreamMapping
    if (mapping != null) {
      const credential = secrets.upstreamCredential
      return isMcpTool(mapping)
        ? proxy.callTool({ beeId: bee.id, mapping, credential }, input as Record<string, unknown>, context)
        : proxy.callMapped({ beeId: bee.id, mapping, credential }, input as Record<string, unknown>, context)
    }
    return proxy.call({
      beeId: bee.id,
      endpoint,
      version,
      signingSecret: secrets.signingSecret,
      previousSigningSecret: secrets.previousSigningSecret,
      previousUntil: Date.parse(bee.previousSecretExpiresAt ?? ''),
      stream: bee.execution?.mode === 'stream'
    }, input, context)
  }
  const current = registeredBee({ ...describe(bee), execute: runAt(bee.endpoint, bee.semver) }, true)
  if (earlier === undefined) return current

  // Read once per loaded Bee, when first needed (a call pinned to an earlier version, the list of versions): a change of
  // the Bee loads it anew. A version whose schema this one refuses is left out, as the Bee would be.
  let loaded: RegisteredBee[] | Promise<RegisteredBee[]> | undefined
  const versionBee = (version: EarlierVersion, lifecycle: Lifecycle): RegisteredBee[] => {
    try {
      checkStored(version.inputSchema, version.outputSchema)
      const { semver, endpoint, inputSchema, outputSchema } = version
      const description = { ...describe({ ...bee, semver, endpoint, inputSchema, outputSchema }), ...lifecycle }
      return [registeredBee({ ...description, execute: runAt(endpoint, semver) }, true)]
    } catch {
      return []
    }
  }
  current.earlierVersions = () => {
    loaded ??= earlier.read().then((versions) => {
      const lifecycle = lifecycleOf(bee, versions, earlier.sunsetDays)
      return (loaded = versions.flatMap((version) => versionBee(version, lifecycle(version))))
    }, (error: unknown) => {
      loaded = undefined
      throw error
    })
    return loaded
  }
  return current
}

/** Where a published Bee's earlier versions come from, and how long an older major is served after a new one. */
export interface EarlierVersions {
  read: () => Promise<EarlierVersion[]>
  sunsetDays: number
}

const DAY_MS = 86_400_000

/** A version's place in the lifecycle; lastUpdated is when it took it (Deprecation's date). */
type Lifecycle = StatusState & { lastUpdated: string }

/**
 * The status of an earlier version (of `versions`, the latest first), through the lifecycle: an older major than the Bee's is
 * deprecated from when a new major replaced it, its sunset `sunsetDays` after that; a version of the current major
 * follows the Bee. A Bee that is not active is so in every version.
 */
function lifecycleOf (bee: Omit<CatalogBee, 'secrets'>, versions: EarlierVersion[], sunsetDays: number): (version: EarlierVersion) => Lifecycle {
  const major = semver.major(bee.semver)
  const follows = { status: bee.status, statusMessage: bee.statusMessage, sunsetAt: bee.sunsetAt, lastUpdated: bee.updatedAt }
  // The latest first: a major's first version in the list is its highest, replaced when the next major came.
  const replaced = new Map<number, string>()
  for (const version of versions) if (!replaced.has(semver.major(version.semver))) replaced.set(semver.major(version.semver), version.replacedAt)
  return (version) => {
    const its = semver.major(version.semver)
    const since = replaced.get(its)
    if (bee.status !== 'active' || its >= major || since === undefined) return follows
    return {
      status: 'deprecated',
      statusMessage: `Version ${its} of ${bee.id} is replaced by version ${major}: pin ${major} (GET /api/bees/${bee.id}/versions lists the versions).`,
      sunsetAt: new Date(Date.parse(since) + sunsetDays * DAY_MS).toISOString(),
      lastUpdated: since
    }
  }
}
