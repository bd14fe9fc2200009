import { type Expression, type Kysely, type QueryCreator, type Selectable, sql } from 'kysely'
import semver from 'semver'
import type { JsonObject } from '../../publishing/json-schema.js'
import { MCP_MAPPING_START, type UpstreamMapping } from '../../publishing/mcp-tool-mapping.js'
import { isBeeId, type SubscriptionPlan } from '../../schemas.js'
import type { SecretBox } from '../secrets.js'
import type { Tables } from '../tables.js'
import type { BuiltinState, CatalogBee, CatalogChanges, ChangedBee, CatalogFilter, CatalogRepository, EarlierVersion, StoredBee, UnreadableBee } from './catalog-repository.js'
import type { CatalogDialect } from './catalog-dialect.js'
import { inserting, insertRow, type SealedRow } from './insert-row.js'
import type { CatalogNotifications } from './notifications.js'
import { staleCredentials, staleSecrets } from './stale-secrets.js'

type BeeRow = Omit<Selectable<Tables['published_bees']>, 'change_seq'>

type SecretColumns = 'signing_secret' | 'previous_signing_secret' | 'previous_secret_expires_at' | 'upstream_credential'

/** A Bee's columns but its secrets: what a change writes (see ChangedBee). */
const changedRow = (bee: ChangedBee): Omit<BeeRow, 'plan' | 'upstream_mapping' | SecretColumns> & { plan: string | null, upstream_mapping: string | null } => ({
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
  execution_mode: bee.execution?.mode ?? 'sync',
  max_run_seconds: bee.execution?.maxRunSeconds ?? null,
  event_schema: bee.execution?.eventSchema == null ? null : JSON.stringify(bee.execution.eventSchema),
  upstream_mapping: bee.upstreamMapping == null ? null : JSON.stringify(bee.upstreamMapping),
  version: bee.version,
  semver: bee.semver,
  created_at: bee.createdAt,
  updated_at: bee.updatedAt
})

const toRow = (bee: StoredBee, box: SecretBox): SealedRow => ({
  ...changedRow(bee),
  signing_secret: box.seal(bee.signingSecret, bee.id),
  previous_signing_secret: bee.previousSigningSecret == null ? null : box.seal(bee.previousSigningSecret, bee.id),
  previous_secret_expires_at: bee.previousSigningSecret == null ? null : bee.previousSecretExpiresAt ?? null,
  upstream_credential: bee.upstreamCredential == null ? null : box.seal(bee.upstreamCredential, upstreamContext(bee.id))
})

/** What an upstream credential is sealed for: its Bee, and its role, so it never opens as that Bee's signing secret. */
const upstreamContext = (id: string) => `${id} upstream credential`

/** A row as the sync loads it: everything but the signing secrets, which stay sealed until `secrets()` is called. */
function catalogBeeOf (row: SealedRow, box: SecretBox): CatalogBee {
  const { signing_secret: sealed, previous_signing_secret: previousSealed, upstream_credential: credentialSealed } = row
  return {
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
    pricing: {
      type: row.pricing_type,
      costMicros: Number(row.cost_micros),
      currency: row.currency,
      ...(row.plan === null ? {} : { plan: JSON.parse(row.plan) as SubscriptionPlan })
    },
    status: row.status,
    statusMessage: row.status_message,
    sunsetAt: row.sunset_at,
    callsPerMinute: row.calls_per_minute === null ? null : Number(row.calls_per_minute),
    execution: {
      mode: row.execution_mode,
      maxRunSeconds: row.max_run_seconds === null ? null : Number(row.max_run_seconds),
      eventSchema: row.event_schema === null ? null : JSON.parse(row.event_schema) as JsonObject
    },
    upstreamMapping: row.upstream_mapping === null ? null : JSON.parse(row.upstream_mapping) as UpstreamMapping,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    version: Number(row.version),
    semver: row.semver,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    secrets: () => ({
      signingSecret: box.open(sealed, row.id),
      previousSigningSecret: previousSealed === null ? null : box.open(previousSealed, row.id),
      upstreamCredential: credentialSealed === null ? null : box.open(credentialSealed, upstreamContext(row.id))
    })
  }
}

const fromRow = (row: SealedRow, box: SecretBox): StoredBee => {
  const { secrets, ...bee } = catalogBeeOf(row, box)
  const { signingSecret, previousSigningSecret, upstreamCredential } = secrets()
  return { ...bee, signingSecret, previousSigningSecret, upstreamCredential }
}

type StateRow = Omit<Selectable<Tables['builtin_bee_states']>, 'change_seq'>

const stateOf = (row: StateRow): BuiltinState =>
  ({ id: row.id, status: row.status, statusMessage: row.status_message, sunsetAt: row.sunset_at, updatedAt: row.updated_at })

/**
 * The catalog over Kysely: the same queries serve SQLite and PostgreSQL, but for what `dialect` does its own way (how
 * a change takes the catalog version, the search index, the id order). Signing secrets are sealed by `box` on the way
 * in and opened on the way out.
 */
export function sqlCatalogRepository (db: Kysely<Tables>, dialect: CatalogDialect, box: SecretBox, notifications: CatalogNotifications): CatalogRepository {
  const { change, idInByteOrder, index } = dialect
  const nothingToPrepare = async () => {}

  /** The active published Bees a filter takes, to select from. */
  const active = (filter: CatalogFilter) => {
    let query = db.selectFrom('published_bees').where('status', '=', 'active')
    if (filter.category !== undefined) query = query.where('category', '=', filter.category)
    if (filter.colony !== undefined) query = query.where('colony', '=', filter.colony)
    if (filter.ownerId !== undefined) query = query.where('owner_id', '=', filter.ownerId)
    if (filter.pricing !== undefined) query = query.where('pricing_type', '=', filter.pricing as BeeRow['pricing_type'])
    if (filter.after !== undefined) query = query.where(idInByteOrder, '>', filter.after)
    if (filter.ids !== undefined) query = query.where('id', 'in', filter.ids)
    return query
  }

  const version = async () => {
    const row = await db.selectFrom('catalog_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow()
    return Number(row.version)
  }

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
      return await change(nothingToPrepare, async (query, catalogVersion) => {
        const result = await query.updateTable('published_bees').set((eb) => ({
          previous_signing_secret: previousUntil === null ? null : eb.ref('signing_secret'),
          previous_secret_expires_at: previousUntil,
          signing_secret: box.seal(secret, id),
          version: eb('version', '+', 1),
          change_seq: catalogVersion
        })).where('id', '=', id).executeTakeFirst()
        return Number(result.numUpdatedRows) > 0
      })
    },

    async resealSecrets () {
      const now = new Date().toISOString()
      // A wrong SECRETS_KEY names no row's key, so every row is read and the first one refuses the start below.
      const rows = new Map((await staleSecrets(db, box.currentPrefix(), now).execute()).map((row) => [row.id, row]))
      let rewritten = 0
      for (const row of rows.values()) {
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
      for (const row of await staleCredentials(db, box.currentPrefix()).execute()) {
        const sealed = row.upstream_credential as string
        const credential = box.open(sealed, upstreamContext(row.id))
        const result = await db.updateTable('published_bees').set({ upstream_credential: box.seal(credential, upstreamContext(row.id)) })
          .where('id', '=', row.id).where('upstream_credential', '=', sealed).executeTakeFirst()
        rewritten += Number(result.numUpdatedRows)
      }
      return rewritten
    },

    version,

    async changesSince (after) {
      // One statement, so one snapshot: the version it reads and the changes it reads agree (changes commit in version
      // order, so every change up to that version is in it, and none after). One round trip, where the version and
      // the three tables took four (and a connection each); every instance runs it after every change it hears of.
      const { rows } = await sql<{ kind: 'version' | 'changed' | 'removed' | 'state' } & StateRow>`
        SELECT 'version' AS kind, CAST(version AS TEXT) AS id, NULL AS status, NULL AS status_message, NULL AS sunset_at, NULL AS updated_at
          FROM catalog_version WHERE id = 1
        UNION ALL SELECT 'changed', id, NULL, NULL, NULL, NULL FROM published_bees WHERE change_seq > ${after}
        UNION ALL SELECT 'removed', id, NULL, NULL, NULL, NULL FROM catalog_removals WHERE change_seq > ${after}
        UNION ALL SELECT 'state', id, status, status_message, sunset_at, updated_at FROM builtin_bee_states WHERE change_seq > ${after}`.execute(db)
      const changes: CatalogChanges = { version: 0, changed: [], removed: [], states: [] }
      for (const row of rows) {
        if (row.kind === 'version') changes.version = Number(row.id)
        else if (row.kind === 'state') changes.states.push(stateOf(row))
        else changes[row.kind].push(row.id)
      }
      return changes
    },

    async builtinStates () {
      return (await db.selectFrom('builtin_bee_states').selectAll().execute()).map(stateOf)
    },

    async catalogBee (id) {
      if (!isBeeId(id)) return null
      const row = await db.selectFrom('published_bees').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : catalogBeeOf(row, box)
    },

    async mcpToolBees () {
      // Few rows have a mapping; of those, an MCP tool's starts with its kind (see McpToolMapping).
      const rows = await db.selectFrom('published_bees').selectAll().where('upstream_mapping', 'is not', null)
        .where('upstream_mapping', 'like', `${MCP_MAPPING_START}%`).execute()
      return rows.map((row) => catalogBeeOf(row, box))
    },

    async activeBees (filter, limit) {
      if (filter.ids?.length === 0) return []
      const rows = await active(filter).selectAll().orderBy(idInByteOrder).limit(limit).execute()
      return rows.map((row): CatalogBee | UnreadableBee => {
        try {
          return catalogBeeOf(row, box)
        } catch (error) {
          // A row whose stored JSON does not parse (written by hand, or damaged) is that Bee's fault alone.
          if (!(error instanceof SyntaxError)) throw error
          return { id: row.id, unreadable: error.message }
        }
      })
    },

    async activeBeeIds (filter, limit) {
      if (filter.ids?.length === 0) return []
      const rows = await active(filter).select('id').orderBy(idInByteOrder).limit(limit).execute()
      return rows.map((row) => row.id)
    },

    watch: (onChange, onError) => notifications.listen(onChange, onError),

    search: dialect.search,

    async indexBuiltins (texts) {
      await db.transaction().execute(async (trx) => {
        for (const text of texts) await index(trx, text, text.id)
      })
    },

    async publishedBee (id) {
      // An id no Bee can have is not looked up: PostgreSQL refuses text with NUL bytes outright.
      if (!isBeeId(id)) return null
      const row = await db.selectFrom('published_bees').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : fromRow(row, box)
    },

    async insertBee (bee) {
      return await inserting(() => change((trx) => index(trx, bee, bee.id), (query, version) => insertRow(query, toRow(bee, box), version))) !== 'taken'
    },

    async insertBeeWithinQuota (bee, maxPerOwner) {
      return await dialect.insertWithinQuota(bee, maxPerOwner, () => toRow(bee, box))
    },

    async updateBee (bee, replaces) {
      const { id, ...row } = changedRow(bee)
      const update = (query: QueryCreator<Tables>, version: Expression<number>) => query.updateTable('published_bees')
        .set({ ...row, change_seq: version }).where('id', '=', id).returning('change_seq').executeTakeFirst()
      // The row as it is when the change commits: the version it replaces, unless another change replaced it meanwhile.
      const archive = replaces === undefined || replaces === bee.semver
        ? null
        : (query: QueryCreator<Tables>) => query.insertInto('bee_versions')
            .columns(['bee_id', 'semver', 'endpoint', 'input_schema', 'output_schema', 'replaced_at'])
            .expression((eb) => eb.selectFrom('published_bees')
              .select(['id', 'semver', 'endpoint', 'input_schema', 'output_schema', sql.val(bee.updatedAt).as('replaced_at')])
              .where('id', '=', id).where('semver', '=', replaces))
            .onConflict((oc) => oc.columns(['bee_id', 'semver']).doNothing())
      const updated = await dialect.update(bee, archive, update)
      return updated === undefined ? null : Number(updated.change_seq)
    },

    async earlierVersions (id) {
      if (!isBeeId(id)) return []
      const rows = await db.selectFrom('bee_versions').selectAll().where('bee_id', '=', id).execute()
      return rows.map((row): EarlierVersion => ({
        semver: row.semver,
        endpoint: row.endpoint,
        inputSchema: JSON.parse(row.input_schema) as JsonObject,
        outputSchema: JSON.parse(row.output_schema) as JsonObject,
        replacedAt: row.replaced_at
      })).sort((a, b) => semver.rcompare(a.semver, b.semver))
    },

    async deleteBee (id) {
      return await change(async (trx) => {
        const result = await trx.deleteFrom('published_bees').where('id', '=', id).executeTakeFirst()
        const deleted = Number(result.numDeletedRows) > 0
        if (deleted) await index(trx, null, id)
        // A Bee published again under this id starts its versions anew.
        if (deleted) await trx.deleteFrom('bee_versions').where('bee_id', '=', id).execute()
        return deleted
      }, async (query, version, deleted) => {
        if (deleted) {
          await query.insertInto('catalog_removals').values({ id, change_seq: version })
            .onConflict((oc) => oc.column('id').doUpdateSet({ change_seq: version })).execute()
        }
        return deleted
      })
    },

    async setBuiltinState (state) {
      await change(nothingToPrepare, async (query, version) => {
        const row = { status: state.status, status_message: state.statusMessage, sunset_at: state.sunsetAt, updated_at: state.updatedAt, change_seq: version }
        await query.insertInto('builtin_bee_states').values({ id: state.id, ...row })
          .onConflict((oc) => oc.column('id').doUpdateSet(row)).execute()
      })
    }
  }
}
