import type { Kysely, Selectable, Transaction } from 'kysely'
import type { JsonObject } from '../../publishing/json-schema.js'
import { isBeeId, type SubscriptionPlan } from '../../schemas.js'
import type { SecretBox } from '../secrets.js'
import type { Tables } from '../tables.js'
import type { CatalogRepository, StoredBee } from './catalog-repository.js'

type BeeRow = Selectable<Tables['published_bees']>

const toRow = (bee: StoredBee, box: SecretBox): Omit<BeeRow, 'plan'> & { plan: string | null } => ({
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
  plan: bee.pricing.plan === undefined ? null : JSON.stringify(bee.pricing.plan),
  status: bee.status,
  status_message: bee.statusMessage,
  sunset_at: bee.sunsetAt,
  calls_per_minute: bee.callsPerMinute,
  signing_secret: box.seal(bee.signingSecret, bee.id),
  previous_signing_secret: bee.previousSigningSecret == null ? null : box.seal(bee.previousSigningSecret, bee.id),
  previous_secret_expires_at: bee.previousSigningSecret == null ? null : bee.previousSecretExpiresAt ?? null,
  version: bee.version,
  created_at: bee.createdAt,
  updated_at: bee.updatedAt
})

const fromRow = (row: Omit<BeeRow, 'plan'> & { plan: string | null }, box: SecretBox): StoredBee => ({
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
  pricing: { type: row.pricing_type, costMicros: Number(row.cost_micros), currency: row.currency, ...(row.plan === null ? {} : { plan: JSON.parse(row.plan) as SubscriptionPlan }) },
  status: row.status,
  statusMessage: row.status_message,
  sunsetAt: row.sunset_at,
  callsPerMinute: row.calls_per_minute === null ? null : Number(row.calls_per_minute),
  signingSecret: box.open(row.signing_secret, row.id),
  previousSigningSecret: row.previous_signing_secret === null ? null : box.open(row.previous_signing_secret, row.id),
  previousSecretExpiresAt: row.previous_secret_expires_at,
  version: Number(row.version),
  createdAt: row.created_at,
  updatedAt: row.updated_at
})

/**
 * The catalog over Kysely (the same queries serve SQLite and PostgreSQL); signing secrets are sealed by
 * `box` on the way in and opened on the way out.
 */
export function sqlCatalogRepository (db: Kysely<Tables>, box: SecretBox): CatalogRepository {
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

    async rotatePublisherKey (id, keyHash) {
      const row = await db.updateTable('publishers').set({ key_hash: keyHash }).where('id', '=', id)
        .returning(['id', 'email', 'name', 'created_at']).executeTakeFirst()
      return row === undefined ? null : { id: row.id, email: row.email, name: row.name, createdAt: row.created_at }
    },

    async rotateSigningSecret (id, secret, previousUntil) {
      if (!isBeeId(id)) return false
      // One statement: the secret replaced is the one stored at that moment, whatever else rotates it concurrently.
      // Both columns are sealed for the same Bee, so the replaced ciphertext moves as it is. The version
      // moves so every instance reloads the Bee with its new secret.
      return await change(async (trx) => {
        const result = await trx.updateTable('published_bees').set((eb) => ({
          previous_signing_secret: previousUntil === null ? null : eb.ref('signing_secret'),
          previous_secret_expires_at: previousUntil,
          signing_secret: box.seal(secret, id),
          version: eb('version', '+', 1)
        })).where('id', '=', id).executeTakeFirst()
        return Number(result.numUpdatedRows) > 0
      })
    },

    async resealSecrets () {
      const now = new Date().toISOString()
      const rows = await db.selectFrom('published_bees')
        .select(['id', 'signing_secret', 'previous_signing_secret', 'previous_secret_expires_at']).execute()
      let rewritten = 0
      for (const row of rows) {
        const expired = row.previous_signing_secret !== null && (row.previous_secret_expires_at ?? '') <= now
        const previous = expired ? null : row.previous_signing_secret
        const stale = (stored: string | null) => stored !== null && !box.isCurrent(stored)
        // Opening each value first refuses to start on a key that cannot read them.
        const secret = box.open(row.signing_secret, row.id)
        const previousSecret = previous === null ? null : box.open(previous, row.id)
        if (!expired && !stale(row.signing_secret) && !stale(previous)) continue
        // Conditional on the values read, so instances starting together rewrite each row once.
        const result = await db.updateTable('published_bees').set({
          signing_secret: stale(row.signing_secret) ? box.seal(secret, row.id) : row.signing_secret,
          previous_signing_secret: previousSecret === null ? null : stale(previous) ? box.seal(previousSecret, row.id) : previous,
          previous_secret_expires_at: previous === null ? null : row.previous_secret_expires_at
        }).where('id', '=', row.id).where('signing_secret', '=', row.signing_secret).executeTakeFirst()
        rewritten += Number(result.numUpdatedRows)
      }
      return rewritten
    },

    async version () {
      const row = await db.selectFrom('catalog_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow()
      return Number(row.version)
    },

    async publishedBees () {
      return (await db.selectFrom('published_bees').selectAll().orderBy('id').execute()).map((row) => fromRow(row, box))
    },

    async publishedBee (id) {
      // An id no Bee can have is not looked up: PostgreSQL refuses text with NUL bytes outright.
      if (!isBeeId(id)) return null
      const row = await db.selectFrom('published_bees').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : fromRow(row, box)
    },

    async insertBee (bee) {
      return await change(async (trx) => {
        const inserted = await trx.insertInto('published_bees').values(toRow(bee, box))
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
        const inserted = await trx.insertInto('published_bees').values(toRow(bee, box))
          .onConflict((oc) => oc.column('id').doNothing()).returning('id').executeTakeFirst()
        return inserted === undefined ? 'taken' : 'inserted'
      })
    },

    async updateBee (bee) {
      const { id, ...row } = toRow(bee, box)
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
