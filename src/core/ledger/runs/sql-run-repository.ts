import { sql, type ExpressionBuilder, type Kysely, type Selectable } from 'kysely'
import { RUN_ID_PATTERN } from '../../runs/schemas.js'
import { decodeCursor } from '../cursors.js'
import type { Dialect } from '../dialect.js'
import { INVALID_CURSOR, page } from '../paging.js'
import type { Tables } from '../tables.js'
import type { RunNotifications } from './notifications.js'
import type { RunRepository, StoredRun } from './run-repository.js'

type Row = Selectable<Tables['runs']>

const idShape = new RegExp(RUN_ID_PATTERN)

const toRun = (row: Row): StoredRun => ({
  id: row.id,
  beeId: row.bee_id,
  ownerHash: row.owner_hash,
  keyHash: row.key_hash,
  status: row.status,
  input: JSON.parse(row.input) as unknown,
  idempotencyKey: row.idempotency_key,
  requestHash: row.request_hash,
  holdId: row.hold_id === null ? null : Number(row.hold_id),
  requestId: row.request_id,
  progress: row.progress === null ? null : Number(row.progress),
  honey: row.honey,
  error: row.error === null ? null : JSON.parse(row.error) as StoredRun['error'],
  attempts: Number(row.attempts),
  maxRunSeconds: Number(row.max_run_seconds),
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  expiresAt: row.expires_at,
  updatedAt: row.updated_at
})

/**
 * Queued and not expired (and created before `queuedBefore`, when given), or running under a lease that passed (its
 * worker died): not expired, or with an answer to sell.
 */
const claimable = (now: string, queuedBefore = now) => (eb: ExpressionBuilder<Tables, 'runs'>) => eb.or([
  eb.and([eb('status', '=', 'queued'), eb('expires_at', '>', now), eb('created_at', '<=', queuedBefore)]),
  eb.and([eb('status', '=', 'running'), eb('lease_until', '<', now), eb.or([eb('expires_at', '>', now), eb('honey', 'is not', null)])])
])

/** Runs over Kysely: the same queries serve SQLite and PostgreSQL, but for PostgreSQL's SKIP LOCKED in the expiry sweep. */
export function sqlRunRepository (db: Kysely<Tables>, dialect: Dialect, notifications: RunNotifications): RunRepository {
  const byKey = async (ownerHash: string, key: string) => {
    const row = await db.selectFrom('runs').selectAll().where('owner_hash', '=', ownerHash).where('idempotency_key', '=', key).executeTakeFirst()
    return row === undefined ? null : toRun(row)
  }

  return {
    async insert (run) {
      const row = await db.insertInto('runs').values({
        id: run.id,
        bee_id: run.beeId,
        owner_hash: run.ownerHash,
        key_hash: run.keyHash,
        status: 'queued',
        input: JSON.stringify(run.input),
        idempotency_key: run.idempotencyKey,
        request_hash: run.requestHash,
        hold_id: run.holdId,
        request_id: run.requestId,
        progress: null,
        honey: null,
        error: null,
        attempts: 0,
        max_run_seconds: run.maxRunSeconds,
        run_token: null,
        lease_until: null,
        created_at: run.createdAt,
        started_at: null,
        finished_at: null,
        expires_at: run.expiresAt,
        updated_at: run.createdAt
      }).onConflict((oc) => oc.columns(['owner_hash', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing())
        .returningAll().executeTakeFirst()
      if (row !== undefined) return { inserted: true, run: toRun(row) }
      // Only a run with an owner and a key can conflict: the run that took the key first.
      const existing = await byKey(run.ownerHash as string, run.idempotencyKey as string)
      if (existing === null) throw new Error(`run ${run.id}: its idempotency key conflicted with a run that is gone`)
      return { inserted: false, run: existing }
    },

    async get (id) {
      // An id no run can have is not looked up: PostgreSQL refuses text with NUL bytes outright.
      if (!idShape.test(id)) return null
      const row = await db.selectFrom('runs').selectAll().where('id', '=', id).executeTakeFirst()
      return row === undefined ? null : toRun(row)
    },

    byIdempotencyKey: byKey,

    async countUnfinished (ownerHash) {
      const row = await db.selectFrom('runs').select((eb) => eb.fn.countAll().as('n'))
        .where('owner_hash', '=', ownerHash).where('status', 'in', ['queued', 'running']).executeTakeFirst()
      return Number(row?.n ?? 0)
    },

    async list ({ ownerHash, limit, cursor }) {
      const before = cursor === undefined ? undefined : decodeCursor(cursor, idShape)
      if (before === null) return INVALID_CURSOR
      let query = db.selectFrom('runs').selectAll().where('owner_hash', '=', ownerHash).orderBy('id', 'desc').limit(limit + 1)
      if (before !== undefined) query = query.where('id', '<', before)
      return page(await query.execute(), limit, (row) => row.id, toRun)
    },

    async claim ({ id, runToken, now, leaseUntil, queuedBefore }) {
      let query = db.updateTable('runs').set((eb) => ({
        status: 'running',
        run_token: runToken,
        lease_until: leaseUntil,
        attempts: eb('attempts', '+', 1),
        started_at: eb.fn.coalesce('started_at', eb.val(now)),
        updated_at: now
      }))
      if (id === undefined) {
        // The outer condition is checked again on the row itself: two claimers racing for one row, one wins.
        query = query.where('id', '=', (eb) => eb.selectFrom('runs').select('id').where(claimable(now, queuedBefore)).orderBy('id').limit(1))
          .where(claimable(now, queuedBefore))
      } else {
        if (!idShape.test(id)) return null
        query = query.where('id', '=', id).where(claimable(now))
      }
      const row = await query.returningAll().executeTakeFirst()
      return row === undefined ? null : toRun(row)
    },

    async heartbeat (id, runToken, leaseUntil) {
      const result = await db.updateTable('runs').set({ lease_until: leaseUntil })
        .where('id', '=', id).where('run_token', '=', runToken).where('status', '=', 'running').executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    async keepAnswer (id, runToken, honey) {
      const result = await db.updateTable('runs').set({ honey })
        .where('id', '=', id).where('run_token', '=', runToken).where('status', '=', 'running').executeTakeFirst()
      return Number(result.numUpdatedRows) > 0
    },

    async settle (id, settlement) {
      let query = db.updateTable('runs').set({
        status: settlement.status,
        ...(settlement.honey === undefined ? {} : { honey: settlement.honey }),
        ...(settlement.error === undefined ? {} : { error: settlement.error === null ? null : JSON.stringify(settlement.error) }),
        ...(settlement.status === 'succeeded' ? { progress: 1 } : {}),
        finished_at: settlement.at,
        run_token: null,
        lease_until: null,
        updated_at: settlement.at
      }).where('id', '=', id).where('status', 'in', settlement.from)
      if (settlement.runToken !== undefined) query = query.where('run_token', '=', settlement.runToken)
      if (settlement.unanswered === true) query = query.where('honey', 'is', null)
      const row = await query.returningAll().executeTakeFirst()
      return row === undefined ? null : toRun(row)
    },

    async expireDue (now, limit) {
      // A run with an answer kept is its worker's (or its successor's) to sell: its hold may be captured already.
      let due = db.selectFrom('runs').select('id').where('status', 'in', ['queued', 'running']).where('expires_at', '<=', now)
        .where('honey', 'is', null).orderBy('expires_at').limit(limit)
      // Sweepers on other instances skip the rows this one has locked instead of queueing behind them.
      if (dialect === 'postgres') due = due.forUpdate().skipLocked()
      const rows = await db.updateTable('runs').set({
        status: 'expired',
        error: JSON.stringify({
          code: 'RUN_EXPIRED',
          message: 'The run was not finished by its expiresAt (it waited for a worker, or its worker stopped, too long). Nothing was charged; start it again.',
          status: 504
        } satisfies StoredRun['error']),
        finished_at: now,
        run_token: null,
        lease_until: null,
        updated_at: now
      }).where('id', 'in', due).where('status', 'in', ['queued', 'running']).where('honey', 'is', null).returningAll().execute()
      return rows.map(toRun)
    },

    async appendEvent (id, runToken, kind, data, at) {
      // Numbered in the insert itself, and only while the worker still owns the run: a worker that lost it writes nothing.
      const inserted = await sql`insert into run_events (run_id, seq, kind, data, created_at)
        select id, (select coalesce(max(seq), 0) + 1 from run_events where run_id = ${id}), ${kind}, ${data}, ${at}
        from runs where id = ${id} and run_token = ${runToken} and status = 'running'`.execute(db)
      if (Number(inserted.numAffectedRows ?? 0) === 0) return false
      if (kind === 'progress') {
        await db.updateTable('runs').set({ progress: (JSON.parse(data) as { progress: number }).progress })
          .where('id', '=', id).where('run_token', '=', runToken).execute()
      }
      return true
    },

    async eventsAfter (id, after, limit) {
      if (!idShape.test(id)) return []
      const rows = await db.selectFrom('run_events').select(['seq', 'kind', 'data']).where('run_id', '=', id).where('seq', '>', after)
        .orderBy('seq').limit(limit).execute()
      return rows.map((row) => ({ seq: Number(row.seq), kind: row.kind, data: row.data }))
    },

    async purgeEnded (before, limit) {
      // finished_at is set by every settlement that ends a run (and by none that does not).
      const ended = await db.selectFrom('runs').select('id').where('finished_at', '<', before).where('status', 'in', ['succeeded', 'failed', 'cancelled', 'expired'])
        .orderBy('finished_at').limit(limit).execute()
      if (ended.length === 0) return 0
      const ids = ended.map((row) => row.id)
      // The events first: a purge cut short leaves a run without them, never events without their run.
      await db.deleteFrom('run_events').where('run_id', 'in', ids).execute()
      const result = await db.deleteFrom('runs').where('id', 'in', ids).executeTakeFirst()
      return Number(result.numDeletedRows)
    },

    notify: async (id) => { await notifications.notify(id) },
    watch: async (onNotify, onError) => await notifications.listen(onNotify, onError),

    async holdState (holdId) {
      const row = await db.selectFrom('holds').select('state').where('id', '=', holdId).executeTakeFirst()
      return row?.state ?? null
    }
  }
}
