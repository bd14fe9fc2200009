import type { ExpressionBuilder, Kysely, Selectable, Updateable } from 'kysely'
import { PREPARATION_ID_PATTERN, type Preparation } from '../../preparations/schemas.js'
import { decodeCursor } from '../cursors.js'
import { INVALID_CURSOR, page } from '../paging.js'
import type { Tables } from '../tables.js'
import type { PreparationChange, PreparationRepository } from './preparation-repository.js'

type Row = Selectable<Tables['preparations']>

const idShape = new RegExp(PREPARATION_ID_PATTERN)

const toPreparation = (row: Row): Preparation => ({
  id: row.id,
  name: row.name,
  websiteUrl: row.website_url,
  businessName: row.business_name,
  description: row.description,
  primaryServices: JSON.parse(row.primary_services) as string[],
  targetAudience: row.target_audience,
  notes: row.notes,
  status: row.status,
  ownerId: row.owner_id,
  ownerEmail: row.owner_email,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  outputFiles: row.output_files === null ? null : JSON.parse(row.output_files) as Preparation['outputFiles'],
  progress: JSON.parse(row.progress) as Preparation['progress'],
  error: row.error === null ? null : JSON.parse(row.error) as Preparation['error'],
  attempts: Number(row.attempts)
})

const json = (value: unknown) => value === null ? null : JSON.stringify(value)

/** The columns a change sets; a change always ends the run in progress, if any. */
function columnsOf (change: PreparationChange, endsRun: boolean): Updateable<Tables['preparations']> {
  const { inputs } = change
  return {
    ...(inputs === undefined
      ? {}
      : {
          name: inputs.name,
          website_url: inputs.websiteUrl,
          business_name: inputs.businessName,
          description: inputs.description,
          primary_services: JSON.stringify(inputs.primaryServices),
          target_audience: inputs.targetAudience,
          notes: inputs.notes
        }),
    ...(change.status === undefined ? {} : { status: change.status }),
    ...(change.outputFiles === undefined ? {} : { output_files: json(change.outputFiles) }),
    ...(change.progress === undefined ? {} : { progress: JSON.stringify(change.progress) }),
    ...(change.error === undefined ? {} : { error: json(change.error) }),
    ...(change.attempts === undefined ? {} : { attempts: change.attempts }),
    ...(change.runAfter === undefined ? {} : { run_after: change.runAfter }),
    ...(endsRun ? { run_token: null, lease_until: null } : {}),
    updated_at: change.updatedAt
  }
}

/** Queued and due, or running under a lease that has passed (its worker died). */
const claimable = (now: string, respectRunAfter: boolean) => (eb: ExpressionBuilder<Tables, 'preparations'>) => eb.or([
  respectRunAfter ? eb.and([eb('status', '=', 'queued'), eb('run_after', '<=', now)]) : eb('status', '=', 'queued'),
  eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now)])
])

/** Preparation records over Kysely: the same queries serve SQLite and PostgreSQL. */
export function sqlPreparationRepository (db: Kysely<Tables>): PreparationRepository {
  return {
    async insert (preparation) {
      await db.insertInto('preparations').values({
        id: preparation.id,
        owner_id: preparation.ownerId,
        owner_email: preparation.ownerEmail,
        name: preparation.name,
        website_url: preparation.websiteUrl,
        business_name: preparation.businessName,
        description: preparation.description,
        primary_services: JSON.stringify(preparation.primaryServices),
        target_audience: preparation.targetAudience,
        notes: preparation.notes,
        status: preparation.status,
        output_files: json(preparation.outputFiles),
        progress: JSON.stringify(preparation.progress),
        error: json(preparation.error),
        attempts: preparation.attempts,
        run_after: preparation.createdAt,
        run_token: null,
        lease_until: null,
        created_at: preparation.createdAt,
        updated_at: preparation.updatedAt
      }).execute()
    },

    async get (id) {
      // An id no record can have is not looked up: PostgreSQL refuses text with NUL bytes outright.
      if (!idShape.test(id)) return null
      const row = await db.selectFrom('preparations').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : toPreparation(row)
    },

    async list ({ limit, cursor, ownerId, status }) {
      const after = cursor === undefined ? undefined : decodeCursor(cursor, idShape)
      if (after === null) return INVALID_CURSOR
      let query = db.selectFrom('preparations').selectAll().orderBy('id').limit(limit + 1)
      if (after !== undefined) query = query.where('id', '>', after)
      if (ownerId !== undefined) query = query.where('owner_id', '=', ownerId)
      if (status !== undefined) query = query.where('status', '=', status)
      return page(await query.execute(), limit, (row) => row.id, toPreparation)
    },

    async change (id, from, change) {
      if (!idShape.test(id)) return { ok: false, reason: 'NOT_FOUND' }
      const row = await db.updateTable('preparations').set(columnsOf(change, true))
        .where('id', '=', id).where('status', 'in', from).returningAll().executeTakeFirst()
      if (row !== undefined) return { ok: true, preparation: toPreparation(row) }
      const current = await db.selectFrom('preparations').select('status').where('id', '=', id).executeTakeFirst()
      return current === undefined ? { ok: false, reason: 'NOT_FOUND' } : { ok: false, reason: 'WRONG_STATE', status: current.status }
    },

    async delete (id) {
      if (!idShape.test(id)) return false
      const result = await db.deleteFrom('preparations').where('id', '=', id).executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },

    async dueIds (now, changedBefore, limit) {
      const rows = await db.selectFrom('preparations').select('id').where(claimable(now, true))
        .where('updated_at', '<=', changedBefore).orderBy('updated_at').limit(limit).execute()
      return rows.map((row) => row.id)
    },

    async countByStatus () {
      const rows = await db.selectFrom('preparations').select((eb) => ['status', eb.fn.countAll<string | number>().as('count')])
        .groupBy('status').execute()
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]))
    },

    async claim ({ id, runToken, now, leaseUntil }) {
      let query = db.updateTable('preparations')
        .set((eb) => ({ status: 'running', run_token: runToken, lease_until: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: now }))
      if (id === undefined) {
        // The outer condition is checked again on the row itself: two claimers racing for one row, one wins.
        query = query.where('id', '=', (eb) => eb.selectFrom('preparations').select('id').where(claimable(now, true))
          .orderBy('run_after').orderBy('id').limit(1)).where(claimable(now, true))
      } else {
        // A job engine's redelivery is its own back-off: run_after is the database queue's.
        if (!idShape.test(id)) return null
        query = query.where('id', '=', id).where(claimable(now, false))
      }
      const row = await query.returningAll().executeTakeFirst()
      return row === undefined ? null : toPreparation(row)
    },

    async heartbeat (id, runToken, progress, leaseUntil) {
      const result = await db.updateTable('preparations').set({ progress: JSON.stringify(progress), lease_until: leaseUntil })
        .where('id', '=', id).where('run_token', '=', runToken).executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    async settle (id, runToken, change) {
      const result = await db.updateTable('preparations').set(columnsOf(change, true))
        .where('id', '=', id).where('run_token', '=', runToken).executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    }
  }
}
