import { type Kysely, type QueryCreator, sql } from 'kysely'
import type { Tables } from '../tables.js'
import type { SearchHit, SearchText } from './catalog-repository.js'
import type { CatalogDialect } from './catalog-dialect.js'
import { versionBump } from './catalog-version.js'
import type { CatalogNotifications } from './notifications.js'
import { textOf, wordsOf } from './search-text.js'

/**
 * PostgreSQL: a change writes the catalog's rows in one statement that also takes the version (a CTE) and sends the
 * notification, so the version's lock is held for that statement and the commit rather than for round trips to the
 * service. A publish and a PATCH go further: one statement each, with no transaction around it (see searchThenBump
 * and insertWithinQuota).
 */
export function postgresCatalog (db: Kysely<Tables>, notifications: CatalogNotifications): CatalogDialect {
  const bump = versionBump(notifications)

  /**
   * What a change of a published Bee's row carries in its one statement, ahead of the row itself: its search row
   * (upserted), then the next version. `bump` reads `search` in its WHERE, which PostgreSQL evaluates before it locks
   * the row it updates: the version's lock, which every change waits for, is not held while the text is indexed. Such
   * a statement commits by itself: the lock is held for the statement and its commit, with no round trip to the
   * service (BEGIN, the search row, the row, COMMIT) in between.
   */
  const searchThenBump = (query: QueryCreator<Tables>, text: SearchText) => {
    const { id, ...columns } = textOf(text)
    return query
      .with('search', (q) => q.insertInto('catalog_search').values({ id, ...columns }).onConflict((oc) => oc.column('id').doUpdateSet(columns)).returning('id'))
      .with('bump', (q) => bump(q as unknown as QueryCreator<Tables>).where(sql<boolean>`EXISTS (SELECT 1 FROM search)`)) as unknown as QueryCreator<Tables>
  }
  const bumped = sql<number>`(SELECT version FROM bump)`

  return {
    idInByteOrder: sql<string>`id COLLATE "C"`,

    change: async (prepare, write) => await db.transaction().execute(async (trx) => {
      const prepared = await prepare(trx)
      // The CTE's columns are read only through `version`; the writes see the catalog's tables as they are.
      return await write(trx.with('bump', bump) as unknown as QueryCreator<Tables>, bumped, prepared)
    }),

    // The search row follows the Bee in its transaction, upserted in one statement.
    async index (trx, text, id) {
      if (text === null) {
        await trx.deleteFrom('catalog_search').where('id', '=', id).execute()
        return
      }
      const { id: _, ...columns } = textOf(text)
      await trx.insertInto('catalog_search').values({ id, ...columns }).onConflict((oc) => oc.column('id').doUpdateSet(columns)).execute()
    },

    async search (query, match, limit) {
      // websearch_to_tsquery takes anything a person types; its "or" joins the words for `any`.
      const text = match === 'all' ? query : wordsOf(query).join(' or ')
      // See catalogRankingMigration for why the query lives in a function.
      const { rows } = await sql<{ id: string, relevance: number }>`SELECT id, relevance FROM catalog_search_ranked(${text}, ${limit})`.execute(db)
      return rows.map((row): SearchHit => ({ id: row.id, relevance: Number(row.relevance) }))
    },

    /**
     * One statement, which commits by itself. It locks the owner's row first, and reads its count as the lock is
     * granted (a publish by the same owner committed meanwhile is counted): over the quota, it takes no row, and
     * neither the search row nor the version nor the Bee is written. A taken id fails the insert, which undoes the
     * statement whole.
     */
    async insertWithinQuota (bee, maxPerOwner, sealed) {
      const row = sealed()
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

    // One statement, committed by itself (a round trip where a transaction took four). Its parts all see the rows as
    // they were when it started, so the archive copies the version the update replaces.
    update: async (text, archive, update) => {
      const query = searchThenBump(db, text)
      return await update(archive === null ? query : query.with('archived', (q) => archive(q as unknown as QueryCreator<Tables>)) as unknown as QueryCreator<Tables>, bumped)
    }
  }
}
