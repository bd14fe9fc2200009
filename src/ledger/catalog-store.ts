import type { Kysely, Selectable, Transaction } from 'kysely'
import type { JsonObject } from '../publishing/json-schema.js'
import { BEE_ID_PATTERN } from '../schemas.js'
import type { Tables } from './tables.js'

export interface Publisher {
  id: string
  email: string
  name: string
  createdAt: string
}

export type BeeStatus = 'active' | 'inactive' | 'deprecated'

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
  pricing: { type: 'free' | 'pay-per-use', costMicros: number, currency: string }
  status: BeeStatus
  statusMessage: string | null
  sunsetAt: string | null
  signingSecret: string
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
export interface CatalogStore {
  createPublisher (publisher: Publisher & { keyHash: string }): Promise<Publisher>
  publisherByKey (keyHash: string): Promise<Publisher | null>
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

type BeeRow = Selectable<Tables['published_bees']>

const toRow = (bee: StoredBee): BeeRow => ({
  id: bee.id,
  owner_id: bee.ownerId,
  owner_email: bee.ownerEmail,
  name: bee.name,
  description: bee.description,
  category: bee.category,
  colony: bee.colony,
  endpoint: bee.endpoint,
  input_schema: JSON.stringify(bee.inputSchema),
  output_schema: JSON.stringify(bee.outputSchema),
  primary_services: JSON.stringify(bee.primaryServices),
  pricing_type: bee.pricing.type,
  cost_micros: bee.pricing.costMicros,
  currency: bee.pricing.currency,
  status: bee.status,
  status_message: bee.statusMessage,
  sunset_at: bee.sunsetAt,
  signing_secret: bee.signingSecret,
  version: bee.version,
  created_at: bee.createdAt,
  updated_at: bee.updatedAt
})

const fromRow = (row: BeeRow): StoredBee => ({
  id: row.id,
  ownerId: row.owner_id,
  ownerEmail: row.owner_email,
  name: row.name,
  description: row.description,
  category: row.category,
  colony: row.colony,
  endpoint: row.endpoint,
  inputSchema: JSON.parse(row.input_schema) as JsonObject,
  outputSchema: JSON.parse(row.output_schema) as JsonObject,
  primaryServices: JSON.parse(row.primary_services) as string[],
  pricing: { type: row.pricing_type, costMicros: Number(row.cost_micros), currency: row.currency },
  status: row.status,
  statusMessage: row.status_message,
  sunsetAt: row.sunset_at,
  signingSecret: row.signing_secret,
  version: Number(row.version),
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

const beeIdShape = new RegExp(BEE_ID_PATTERN)

export function createCatalogStore (db: Kysely<Tables>): CatalogStore {
  /** Runs a change and bumps the catalog version in the same transaction. */
  const change = <T>(work: (trx: Transaction<Tables>) => Promise<T>) => db.transaction().execute(async (trx) => {
    const result = await work(trx)
    await trx.updateTable('catalog_version').set((eb) => ({ version: eb('version', '+', 1) })).where('id', '=', 1).execute()
    return result
  })

  return {
    async createPublisher ({ keyHash, ...publisher }) {
      await db.insertInto('publishers').values({
        id: publisher.id, email: publisher.email, name: publisher.name, key_hash: keyHash, created_at: publisher.createdAt
      }).execute()
      return publisher
    },

    async publisherByKey (keyHash) {
      const row = await db.selectFrom('publishers').select(['id', 'email', 'name', 'created_at'])
        .where('key_hash', '=', keyHash).executeTakeFirst()
      return row === undefined ? null : { id: row.id, email: row.email, name: row.name, createdAt: row.created_at }
    },

    async version () {
      const row = await db.selectFrom('catalog_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow()
      return Number(row.version)
    },

    async publishedBees () {
      return (await db.selectFrom('published_bees').selectAll().orderBy('id').execute()).map(fromRow)
    },

    async publishedBee (id) {
      // An id no Bee can have is not looked up: PostgreSQL refuses text with NUL bytes outright.
      if (!beeIdShape.test(id)) return null
      const row = await db.selectFrom('published_bees').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : fromRow(row)
    },

    async insertBee (bee) {
      return await change(async (trx) => {
        const inserted = await trx.insertInto('published_bees').values(toRow(bee))
          .onConflict((oc) => oc.column('id').doNothing()).returning('id').executeTakeFirst()
        return inserted !== undefined
      })
    },

    async insertBeeWithinQuota (bee, maxPerOwner) {
      return await db.transaction().execute(async (trx) => {
        // The version row is locked first, so concurrent publishes wait here and each counts the others'
        // Bees (PostgreSQL; SQLite runs one transaction at a time anyway).
        await trx.updateTable('catalog_version').set((eb) => ({ version: eb('version', '+', 1) })).where('id', '=', 1).execute()
        const { count } = await trx.selectFrom('published_bees').select((eb) => eb.fn.countAll().as('count'))
          .where('owner_id', '=', bee.ownerId).executeTakeFirstOrThrow()
        if (Number(count) >= maxPerOwner) return 'over-quota'
        const inserted = await trx.insertInto('published_bees').values(toRow(bee))
          .onConflict((oc) => oc.column('id').doNothing()).returning('id').executeTakeFirst()
        return inserted === undefined ? 'taken' : 'inserted'
      })
    },

    async updateBee (bee) {
      const { id, ...row } = toRow(bee)
      await change((trx) => trx.updateTable('published_bees').set(row).where('id', '=', id).execute())
    },

    async deleteBee (id) {
      return await change(async (trx) => {
        const result = await trx.deleteFrom('published_bees').where('id', '=', id).executeTakeFirst()
        return Number(result.numDeletedRows) > 0
      })
    },

    async builtinStates () {
      const rows = await db.selectFrom('builtin_bee_states').selectAll().execute()
      return rows.map((row) => ({ id: row.id, status: row.status, statusMessage: row.status_message, sunsetAt: row.sunset_at, updatedAt: row.updated_at }))
    },

    async setBuiltinState (state) {
      const row = { status: state.status, status_message: state.statusMessage, sunset_at: state.sunsetAt, updated_at: state.updatedAt }
      await change((trx) => trx.insertInto('builtin_bee_states').values({ id: state.id, ...row })
        .onConflict((oc) => oc.column('id').doUpdateSet(row)).execute())
    }
  }
}
