import { type Expression, type Kysely, type QueryCreator, type Selectable, type Transaction, sql } from 'kysely'
import type { JsonObject } from '../../publishing/json-schema.js'
import { isBeeId, type SubscriptionPlan } from '../../schemas.js'
import type { SecretBox } from '../secrets.js'
import type { Tables } from '../tables.js'
import type { Dialect } from '../dialect.js'
import type { BuiltinState, CatalogBee, CatalogChanges, ChangedBee, CatalogFilter, CatalogRepository, SearchHit, SearchText, StoredBee, UnreadableBee } from './catalog-repository.js'
import type { CatalogNotifications } from './notifications.js'
import { staleSecrets } from './stale-secrets.js'

type BeeRow = Omit<Selectable<Tables['published_bees']>, 'change_seq'>

type SecretColumns = 'signing_secret' | 'previous_signing_secret' | 'previous_secret_expires_at'

/** A Bee's columns but its signing secrets: what a change writes (see ChangedBee). */
const changedRow = (bee: ChangedBee): Omit<BeeRow, 'plan' | SecretColumns> & { plan: string | null } => ({
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
  version: bee.version,
  created_at: bee.createdAt,
  updated_at: bee.updatedAt
})

const toRow = (bee: StoredBee, box: SecretBox): Omit<BeeRow, 'plan'> & { plan: string | null } => ({
  ...changedRow(bee),
  signing_secret: box.seal(bee.signingSecret, bee.id),
  previous_signing_secret: bee.previousSigningSecret == null ? null : box.seal(bee.previousSigningSecret, bee.id),
  previous_secret_expires_at: bee.previousSigningSecret == null ? null : bee.previousSecretExpiresAt ?? null
})

/** A row as the sync loads it: everything but the signing secrets, which stay sealed until `secrets()` is called. */
function catalogBeeOf (row: Omit<BeeRow, 'plan'> & { plan: string | null }, box: SecretBox): CatalogBee {
  const { signing_secret: sealed, previous_signing_secret: previousSealed } = row
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
    pricing: { type: row.pricing_type, costMicros: Number(row.cost_micros), currency: row.currency, ...(row.plan === null ? {} : { plan: JSON.parse(row.plan) as SubscriptionPlan }) },
    status: row.status,
    statusMessage: row.status_message,
    sunsetAt: row.sunset_at,
    callsPerMinute: row.calls_per_minute === null ? null : Number(row.calls_per_minute),
    previousSecretExpiresAt: row.previous_secret_expires_at,
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    secrets: () => ({
      signingSecret: box.open(sealed, row.id),
      previousSigningSecret: previousSealed === null ? null : box.open(previousSealed, row.id)
    })
  }
}

const fromRow = (row: Omit<BeeRow, 'plan'> & { plan: string | null }, box: SecretBox): StoredBee => {
  const { secrets, ...bee } = catalogBeeOf(row, box)
  const { signingSecret, previousSigningSecret } = secrets()
  return { ...bee, signingSecret, previousSigningSecret }
}

type StateRow = Omit<Selectable<Tables['builtin_bee_states']>, 'change_seq'>

const stateOf = (row: StateRow): BuiltinState =>
  ({ id: row.id, status: row.status, statusMessage: row.status_message, sunsetAt: row.sunset_at, updatedAt: row.updated_at })

const textOf = (bee: SearchText): SearchText => ({ id: bee.id, name: bee.name, category: bee.category, colony: bee.colony, description: bee.description })

const wordsOf = (query: string) => query.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0)

/** The words of a query as an FTS5 query: each quoted (no operator syntax), all required as websearch_to_tsquery does, or any. */
const fts5Query = (query: string, match: 'all' | 'any') => wordsOf(query).map((word) => `"${word}"`).join(match === 'all' ? ' ' : ' OR ')

/** Thrown inside an insert's transaction when the id is taken, to roll back what it wrote before it knew. */
class IdTaken extends Error {}

/**
 * The catalog over Kysely (the same queries serve SQLite and PostgreSQL); signing secrets are sealed by
 * `box` on the way in and opened on the way out.
 */
export function sqlCatalogRepository (db: Kysely<Tables>, dialect: Dialect, box: SecretBox, notifications: CatalogNotifications): CatalogRepository {
  /** Takes the next catalog version (and, where there are notifications, sends it on commit). */
  const bump = (query: QueryCreator<Tables>) => {
    const taken = query.updateTable('catalog_version').set((eb) => ({ version: eb('version', '+', 1) })).where('id', '=', 1)
    const notice = notifications.sent(sql.ref<number>('version'))
    return notice === null ? taken.returning('version') : taken.returning(['version', notice.as('notified')])
  }

  /**
   * Runs a change under the next catalog version, which it stamps on the rows it writes. Taking the version locks its
   * row until commit: changes commit in version order, so a reader that saw version V has every change up to V. Every
   * change waits for that lock, so it is taken as late as it can be: `prepare` does what no other change waits for
   * (the search index; an owner's quota, under that owner's lock), then `write` writes the catalog's rows in one
   * statement that on PostgreSQL also takes the version (a CTE) and sends the notification, so the lock is held for
   * that statement and the commit rather than for round trips to the service. SQLite runs one writer at a time: there
   * the version is taken first, which takes the database's write lock for all that follows. On PostgreSQL a publish
   * and a PATCH go further: one statement each, with no transaction around it (see searchThenBump and
   * insertBeeWithinQuota).
   */
  const change = <P, T>(
    prepare: (trx: Transaction<Tables>) => Promise<P>,
    write: (query: QueryCreator<Tables>, version: Expression<number>, prepared: P) => Promise<T>
  ) => db.transaction().execute(async (trx) => {
      if (dialect === 'sqlite') {
        const { version } = await bump(trx).executeTakeFirstOrThrow()
        return await write(trx, sql.val(Number(version)), await prepare(trx))
      }
      const prepared = await prepare(trx)
      // The CTE's columns are read only through `version`; the writes see the catalog's tables as they are.
      return await write(trx.with('bump', bump) as unknown as QueryCreator<Tables>, sql<number>`(SELECT version FROM bump)`, prepared)
    })
  const nothingToPrepare = async () => {}

  /**
   * PostgreSQL: what a change of a published Bee's row carries in its one statement, ahead of the row itself: its
   * search row (upserted), then the next version. `bump` reads `search` in its WHERE, which PostgreSQL evaluates before
   * it locks the row it updates: the version's lock, which every change waits for, is not held while the text is
   * indexed. Such a statement commits by itself: the lock is held for the statement and its commit, with no round
   * trip to the service (BEGIN, the search row, the row, COMMIT) in between.
   */
  const searchThenBump = (query: QueryCreator<Tables>, text: SearchText) => {
    const { id, ...columns } = textOf(text)
    return query
      .with('search', (q) => q.insertInto('catalog_search').values({ id, ...columns }).onConflict((oc) => oc.column('id').doUpdateSet(columns)).returning('id'))
      .with('bump', (q) => bump(q as unknown as QueryCreator<Tables>).where(sql<boolean>`EXISTS (SELECT 1 FROM search)`)) as unknown as QueryCreator<Tables>
  }
  const bumped = sql<number>`(SELECT version FROM bump)`

  // Ids are compared as JavaScript compares them (byte order), whatever the database's collation, so pages
  // merge with the built-in Bees and a cursor means the same on every backend.
  const idInByteOrder = dialect === 'postgres' ? sql<string>`id COLLATE "C"` : sql<string>`id`

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

  /**
   * The search row follows the Bee in its transaction: upserted in one statement on PostgreSQL, replaced whole
   * on SQLite (FTS5 has no upsert).
   */
  const index = async (trx: Transaction<Tables>, text: SearchText | null, id: string) => {
    if (dialect === 'postgres') {
      if (text === null) {
        await trx.deleteFrom('catalog_search').where('id', '=', id).execute()
        return
      }
      const { id: _, ...columns } = textOf(text)
      await trx.insertInto('catalog_search').values({ id, ...columns }).onConflict((oc) => oc.column('id').doUpdateSet(columns)).execute()
      return
    }
    // FTS5 indexes its columns' tokens, not their values: `id = ?` alone reads every row of the index, so the id's
    // phrase (a kebab-case id needs no quoting) narrows the delete to the rows holding it (0.3 ms against 6.8 ms at
    // 20,000 rows).
    await sql`DELETE FROM catalog_search WHERE catalog_search MATCH ${`id : "${id}"`} AND id = ${id}`.execute(trx)
    if (text !== null) await trx.insertInto('catalog_search').values(textOf(text)).execute()
  }

  /**
   * Inserts the Bee and returns the version it was stamped with, unless its id is taken: then the transaction is
   * rolled back, its search row with it.
   */
  const insert = async (query: QueryCreator<Tables>, bee: StoredBee, version: Expression<number>): Promise<number> => {
    const inserted = await query.insertInto('published_bees').values({ ...toRow(bee, box), change_seq: version })
      .onConflict((oc) => oc.column('id').doNothing()).returning('change_seq').executeTakeFirst()
    if (inserted === undefined) throw new IdTaken()
    return Number(inserted.change_seq)
  }

  /** An insert's outcome once its transaction has ended: what it returned, or 'taken'. */
  const inserting = async <T>(run: () => Promise<T>): Promise<T | 'taken'> => {
    try {
      return await run()
    } catch (error) {
      if (error instanceof IdTaken) return 'taken'
      throw error
    }
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

    async search (query, match, limit) {
      if (dialect === 'postgres') {
        // websearch_to_tsquery takes anything a person types; its "or" joins the words for `any`.
        const text = match === 'all' ? query : wordsOf(query).join(' or ')
        // See catalogRankingMigration for why the query lives in a function.
        const { rows } = await sql<{ id: string, relevance: number }>`SELECT id, relevance FROM catalog_search_ranked(${text}, ${limit})`.execute(db)
        return rows.map((row): SearchHit => ({ id: row.id, relevance: Number(row.relevance) }))
      }
      const expression = fts5Query(query, match)
      if (expression === '') return []
      // bm25() is lower for a better match; the weights follow the columns: id, name, category, colony, description.
      const { rows } = await sql<{ id: string, rank: number }>`
        SELECT id, bm25(catalog_search, 5.0, 5.0, 2.0, 2.0, 1.0) AS rank FROM catalog_search
        WHERE catalog_search MATCH ${expression} ORDER BY rank, id LIMIT ${limit}`.execute(db)
      return rows.map((row): SearchHit => ({ id: row.id, relevance: Math.max(0, -Number(row.rank)) }))
    },

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
      return await inserting(() => change((trx) => index(trx, bee, bee.id), (query, version) => insert(query, bee, version))) !== 'taken'
    },

    async insertBeeWithinQuota (bee, maxPerOwner) {
      if (dialect === 'sqlite') {
        // SQLite has taken its write lock with the version, before the count.
        const outcome = await inserting(() => change(async (trx) => {
          const owner = await trx.selectFrom('publishers').select('bee_count').where('id', '=', bee.ownerId).executeTakeFirst()
          const over = Number(owner?.bee_count ?? 0) >= maxPerOwner
          if (!over) await index(trx, bee, bee.id)
          return over
        }, async (query, version, over) => over ? 'over-quota' : await insert(query, bee, version)))
        return typeof outcome === 'number' ? { outcome: 'inserted', version: outcome } : { outcome }
      }
      // PostgreSQL: one statement, which commits by itself. It locks the owner's row first, and reads its count as the
      // lock is granted (a publish by the same owner committed meanwhile is counted): over the quota, it takes no row,
      // and neither the search row nor the version nor the Bee is written. A taken id fails the insert, which undoes
      // the statement whole.
      const row = toRow(bee, box)
      const columns = Object.keys(row) as Array<keyof typeof row>
      const { id, ...text } = textOf(bee)
      try {
        const inserted = await db
          .with('owner', (q) => q.selectFrom('publishers').select('id').where('id', '=', bee.ownerId).where('bee_count', '<', maxPerOwner).forNoKeyUpdate())
          .with('search', (q) => q.insertInto('catalog_search').columns(['id', 'name', 'category', 'colony', 'description'])
            .expression((eb) => eb.selectFrom('owner').select([sql.val(id).as('id'), sql.val(text.name).as('name'), sql.val(text.category).as('category'),
              sql.val(text.colony).as('colony'), sql.val(text.description).as('description')]))
            .onConflict((oc) => oc.column('id').doUpdateSet(text)).returning('id'))
          .with('bump', (q) => bump(q as unknown as QueryCreator<Tables>).where(sql<boolean>`EXISTS (SELECT 1 FROM search)`))
          .insertInto('published_bees').columns([...columns, 'change_seq'])
          .expression((eb) => eb.selectFrom('bump').select([...columns.map((column) => sql.val(row[column]).as(column)), 'version']))
          .returning('change_seq').executeTakeFirst()
        return inserted === undefined ? { outcome: 'over-quota' } : { outcome: 'inserted', version: Number(inserted.change_seq) }
      } catch (error) {
        if ((error as { code?: string, constraint?: string }).code === '23505' && (error as { constraint?: string }).constraint === 'published_bees_pkey') {
          return { outcome: 'taken' }
        }
        throw error
      }
    },

    async updateBee (bee) {
      const { id, ...row } = changedRow(bee)
      const update = (query: QueryCreator<Tables>, version: Expression<number>) => query.updateTable('published_bees')
        .set({ ...row, change_seq: version }).where('id', '=', id).returning('change_seq').executeTakeFirst()
      // PostgreSQL: one statement, committed by itself (a round trip where a transaction took four).
      const updated = dialect === 'postgres'
        ? await update(searchThenBump(db, bee), bumped)
        : await change((trx) => index(trx, bee, id), update)
      return updated === undefined ? null : Number(updated.change_seq)
    },

    async deleteBee (id) {
      return await change(async (trx) => {
        const result = await trx.deleteFrom('published_bees').where('id', '=', id).executeTakeFirst()
        const deleted = Number(result.numDeletedRows) > 0
        if (deleted) await index(trx, null, id)
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
