import type { JsonObject } from '../../publishing/json-schema.js'
import type { UpstreamMapping } from '../../publishing/mcp-tool-mapping.js'
import type { BeeStatus, ExecutionMode, SubscriptionPlan } from '../../schemas.js'

export interface Publisher {
  id: string
  email: string
  name: string
  createdAt: string
}

/** How a published Bee's calls run: absent on a Bee stored as sync. */
export interface StoredExecution {
  mode: ExecutionMode
  /** async and stream: the longest one run may take. */
  maxRunSeconds: number | null
  /** stream: the JSON Schema of each event. */
  eventSchema: JsonObject | null
}

/** A published Bee as stored: everything needed to rebuild its registry entry on any instance. */
export interface StoredBee {
  id: string
  ownerId: string
  ownerEmail: string
  name: string
  description: string
  category: string
  colony: string
  endpoint: string
  inputSchema: JsonObject
  outputSchema: JsonObject
  primaryServices: string[]
  /** `plan`: present on a Bee priced `subscription` only. */
  pricing: { type: 'free' | 'pay-per-use' | 'subscription', costMicros: number, currency: string, plan?: SubscriptionPlan }
  status: BeeStatus
  statusMessage: string | null
  sunsetAt: string | null
  /** The most calls a minute the Bee takes from all callers together, to spare its upstream; null: no limit. */
  callsPerMinute: number | null
  /** Absent: sync. */
  execution?: StoredExecution | undefined
  signingSecret: string
  /** After a rotation, the replaced secret, which still signs calls until previousSecretExpiresAt. */
  previousSigningSecret?: string | null
  previousSecretExpiresAt?: string | null
  /** An imported OpenAPI operation's or MCP tool's mapping to its upstream's own calls; absent or null for Apiary's own contract. */
  upstreamMapping?: UpstreamMapping | null
  /** The imported upstream's credential (an API key or bearer token), sealed at rest; written only when the Bee is published. */
  upstreamCredential?: string | null
  /** The row's revision, moved by every change (not the Bee's semantic version: that is `semver`). */
  version: number
  /** The Bee's semantic version: its schemas and endpoint as callers may pin them. */
  semver: string
  createdAt: string
  updatedAt: string
}

/** An earlier version of a published Bee, as it was when the next replaced it: immutable. */
export interface EarlierVersion {
  semver: string
  endpoint: string
  inputSchema: JsonObject
  outputSchema: JsonObject
  /** When the next version replaced it. */
  replacedAt: string
}

/**
 * A published Bee as a change writes it: everything but its signing secrets, which only a rotation writes
 * (rotateSigningSecret), so a change never writes back a secret it read before a rotation.
 */
export type ChangedBee = Omit<StoredBee, 'signingSecret' | 'previousSigningSecret' | 'previousSecretExpiresAt' | 'upstreamCredential'>

/** A published Bee as the sync loads it: its signing secrets stay sealed until its first call opens them. */
export type CatalogBee = Omit<StoredBee, 'signingSecret' | 'previousSigningSecret' | 'upstreamCredential'> & {
  secrets (): { signingSecret: string, previousSigningSecret: string | null, upstreamCredential: string | null }
}

/** A stored row this version cannot read (its stored JSON does not parse): listings skip it, as its detail does. */
export interface UnreadableBee {
  id: string
  /** Why it cannot be read. */
  unreadable: string
}

/** What changed in the catalog after a version: the ids of Bees changed and removed since, built-in states changed, and the version read. */
export interface CatalogChanges {
  version: number
  changed: string[]
  removed: string[]
  states: BuiltinState[]
}

/** Which active published Bees a listing takes. */
export interface CatalogFilter {
  category?: string | undefined
  colony?: string | undefined
  ownerId?: string | undefined
  pricing?: string | undefined
  /** Only Bees with an id after this one (keyset pagination in id order). */
  after?: string | undefined
  /** Only Bees with one of these ids (a search's hits, say). */
  ids?: readonly string[] | undefined
}

/** A Bee's searchable text. */
export interface SearchText {
  id: string
  name: string
  category: string
  colony: string
  description: string
}

/** A search hit: higher relevance is a better match (the engine's own score, comparable within one query). */
export interface SearchHit {
  id: string
  relevance: number
}

export interface BuiltinState {
  id: string
  status: BeeStatus
  statusMessage: string | null
  sunsetAt: string | null
  updatedAt: string
}

/** Publishers, published Bees and the status of built-in Bees, on the same database as the ledger. */
export interface CatalogRepository {
  createPublisher (publisher: Publisher & { keyHash: string }): Promise<Publisher>
  publisherByKey (keyHash: string): Promise<Publisher | null>
  /** Replaces the publisher's key: the old one stops working at once. Null when there is no such publisher. */
  rotatePublisherKey (id: string, keyHash: string): Promise<Publisher | null>
  /**
   * Gives a Bee a new signing secret. The replaced one is kept until `previousUntil` (null: dropped at
   * once), replacing any earlier one still kept. False when there is no such Bee.
   */
  rotateSigningSecret (id: string, secret: string, previousUntil: string | null): Promise<boolean>
  /**
   * Re-encrypts every stored signing secret and upstream credential not encrypted with the current key (stored before
   * encryption, or under a previous key) and drops expired previous secrets. Throws WrongSecretsKey
   * when one does not decrypt with any known key. Returns how many Bees were rewritten.
   */
  resealSecrets (): Promise<number>
  /** Bumped by every change: instances poll it to notice changes made elsewhere. */
  version (): Promise<number>
  /** The ids of Bees changed and removed after version `after`, and the built-in states changed, with the version they bring the reader to. */
  changesSince (after: number): Promise<CatalogChanges>
  /** Every built-in Bee's stored state (there are as many as built-in Bees, a handful). */
  builtinStates (): Promise<BuiltinState[]>
  /** One published Bee as the registry loads it (its secrets sealed until its first call), or null. */
  catalogBee (id: string): Promise<CatalogBee | null>
  /** Every published Bee imported from an MCP server's tool, whatever its status: what a re-read of the servers compares. */
  mcpToolBees (): Promise<CatalogBee[]>
  /** The active published Bees matching `filter`, in id order, at most `limit`; a row that cannot be read is one, as such. */
  activeBees (filter: CatalogFilter, limit: number): Promise<Array<CatalogBee | UnreadableBee>>
  /** activeBees' ids alone: what a ranking needs before it knows which records its page takes. */
  activeBeeIds (filter: CatalogFilter, limit: number): Promise<string[]>
  /**
   * Calls `onChange` as soon as a change of the catalog commits, on any instance, this one included (PostgreSQL
   * LISTEN/NOTIFY, one channel per schema), with the version it brought (null when unknown); a no-op where the
   * database has no notifications. Resolves to what stops it.
   */
  watch (onChange: (version: number | null) => void, onError: (error: Error) => void): Promise<() => Promise<void>>
  /**
   * Active and inactive Bees alike whose text matches every word of the query (`all`) or any (`any`),
   * each as itself or its stem, best first, at most `limit`; the database's own full-text engine ranks them.
   */
  search (query: string, match: 'all' | 'any', limit: number): Promise<SearchHit[]>
  /** Indexes the built-in Bees' text for search (they live in code, not in published_bees). */
  indexBuiltins (texts: SearchText[]): Promise<void>
  publishedBee (id: string): Promise<StoredBee | null>
  /** False when the id is taken. */
  insertBee (bee: StoredBee): Promise<boolean>
  /**
   * insertBee, unless the owner has `maxPerOwner` Bees already; counted in the insert's transaction. An insert
   * tells the catalog version it committed as.
   */
  insertBeeWithinQuota (bee: StoredBee, maxPerOwner: number): Promise<{ outcome: 'inserted', version: number } | { outcome: 'taken' } | { outcome: 'over-quota' }>
  /**
   * The catalog version the change committed as; null when there was no such Bee. `replaces`: the version the change
   * replaces (the stored `semver`, when the change's differs), kept in the same commit (see earlierVersions).
   */
  updateBee (bee: ChangedBee, replaces?: string): Promise<number | null>
  /** A published Bee's earlier versions, the latest first (its current one is its row's). */
  earlierVersions (id: string): Promise<EarlierVersion[]>
  deleteBee (id: string): Promise<boolean>
  setBuiltinState (state: BuiltinState): Promise<void>
}
