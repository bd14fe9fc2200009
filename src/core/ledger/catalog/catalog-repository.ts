import type { JsonObject } from '../../publishing/json-schema.js'
import type { BeeStatus, SubscriptionPlan } from '../../schemas.js'

export interface Publisher {
  id: string
  email: string
  name: string
  createdAt: string
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
  signingSecret: string
  /** After a rotation, the replaced secret, which still signs calls until previousSecretExpiresAt. */
  previousSigningSecret?: string | null
  previousSecretExpiresAt?: string | null
  version: number
  createdAt: string
  updatedAt: string
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
   * Re-encrypts every stored signing secret not encrypted with the current key (stored before
   * encryption, or under a previous key) and drops expired previous secrets. Throws WrongSecretsKey
   * when one does not decrypt with any known key. Returns how many Bees were rewritten.
   */
  resealSecrets (): Promise<number>
  /** Bumped by every change: instances poll it to notice changes made elsewhere. */
  version (): Promise<number>
  publishedBees (): Promise<StoredBee[]>
  publishedBee (id: string): Promise<StoredBee | null>
  /** False when the id is taken. */
  insertBee (bee: StoredBee): Promise<boolean>
  /** insertBee, unless the owner has `maxPerOwner` Bees already; counted in the insert's transaction. */
  insertBeeWithinQuota (bee: StoredBee, maxPerOwner: number): Promise<'inserted' | 'taken' | 'over-quota'>
  updateBee (bee: StoredBee): Promise<void>
  deleteBee (id: string): Promise<boolean>
  builtinStates (): Promise<BuiltinState[]>
  setBuiltinState (state: BuiltinState): Promise<void>
}
