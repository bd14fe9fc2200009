import type { ExpressionBuilder, Insertable, Kysely, Selectable } from 'kysely'
import type { SecretBox } from '../secrets.js'
import type { Tables } from '../tables.js'
import type { NewCallback, RunCallbackRepository, StoredCallback } from './run-callback-repository.js'

type Row = Selectable<Tables['run_callbacks']>

/** What a sealed value is bound to: a secret copied onto another callback's row does not open. */
const contextOf = (id: string) => `run-callback:${id}`

const toCallback = (row: Row, box: SecretBox): StoredCallback => ({
  id: row.id,
  runId: row.run_id,
  url: row.url,
  secret: box.open(row.secret, contextOf(row.id)),
  token: row.token === null ? null : box.open(row.token, contextOf(row.id)),
  format: row.format,
  configId: row.config_id,
  taskId: row.task_id === null ? null : box.open(row.task_id, contextOf(row.id)),
  authentication: row.auth_scheme === null
    ? null
    : { scheme: row.auth_scheme, credentials: row.auth_credentials === null ? '' : box.open(row.auth_credentials, contextOf(row.id)) },
  state: row.state,
  attempts: Number(row.attempts),
  nextAttemptAt: row.next_attempt_at,
  lastStatus: row.last_status === null ? null : Number(row.last_status),
  lastError: row.last_error,
  createdAt: row.created_at,
  deliveredAt: row.delivered_at
})

const sealed = (value: string | null | undefined, id: string, box: SecretBox) =>
  value === null || value === undefined ? null : box.seal(value, contextOf(id))

/** A new callback's row: pending, never attempted, its secrets sealed. */
const rowOf = (callback: NewCallback, box: SecretBox): Insertable<Tables['run_callbacks']> => ({
  id: callback.id,
  run_id: callback.runId,
  url: callback.url,
  secret: box.seal(callback.secret, contextOf(callback.id)),
  token: sealed(callback.token, callback.id, box),
  state: 'pending',
  attempts: 0,
  next_attempt_at: null,
  lease_until: null,
  last_status: null,
  last_error: null,
  created_at: callback.createdAt,
  delivered_at: null,
  format: callback.format ?? 'webhook',
  config_id: callback.configId ?? null,
  task_id: sealed(callback.taskId, callback.id, box),
  auth_scheme: callback.authentication?.scheme ?? null,
  auth_credentials: sealed(callback.authentication?.credentials, callback.id, box)
})

/**
 * Pending and not leased (or its lease passed: its worker died), and due: a retry whose time came, or a first attempt
 * whose run ended (before `endedBefore`, when given).
 */
const due = (now: string, endedBefore = now) => (eb: ExpressionBuilder<Tables, 'run_callbacks'>) => eb.and([
  eb('state', '=', 'pending'),
  eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
  eb.or([
    eb('next_attempt_at', '<=', now),
    eb.and([
      eb('next_attempt_at', 'is', null),
      eb('run_id', 'in', eb.selectFrom('runs').select('id').where('finished_at', '<=', endedBefore))
    ])
  ])
])

/** Run callbacks over Kysely: the same queries serve SQLite and PostgreSQL; the secrets sealed under SECRETS_KEY. */
export function sqlRunCallbackRepository (db: Kysely<Tables>, box: SecretBox): RunCallbackRepository {
  return {
    async insert (callback) {
      await db.insertInto('run_callbacks').values(rowOf(callback, box)).execute()
    },

    async replaceConfig (callback) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('run_callbacks').where('run_id', '=', callback.runId).where('config_id', '=', callback.configId).execute()
        await trx.insertInto('run_callbacks').values(rowOf(callback, box)).execute()
      })
    },

    async configsOf (runId) {
      const rows = await db.selectFrom('run_callbacks').selectAll().where('run_id', '=', runId).where('config_id', 'is not', null)
        .orderBy('created_at').orderBy('id').execute()
      return rows.map((row) => toCallback(row, box))
    },

    async deleteConfig (runId, configId) {
      await db.deleteFrom('run_callbacks').where('run_id', '=', runId).where('config_id', '=', configId).execute()
    },

    async delete (id) {
      await db.deleteFrom('run_callbacks').where('id', '=', id).execute()
    },

    async claim ({ runId, now, leaseUntil, endedBefore }) {
      let candidate = db.selectFrom('run_callbacks').select('id').where(due(now, endedBefore)).orderBy('id').limit(1)
      if (runId !== undefined) candidate = candidate.where('run_id', '=', runId)
      // The condition is checked again on the row itself: of two claimers racing for one row, one wins.
      const row = await db.updateTable('run_callbacks').set((eb) => ({ attempts: eb('attempts', '+', 1), lease_until: leaseUntil }))
        .where('id', '=', candidate).where('state', '=', 'pending').where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .returningAll().executeTakeFirst()
      return row === undefined ? null : toCallback(row, box)
    },

    async settle (id, outcome) {
      await db.updateTable('run_callbacks').set({
        state: outcome.state,
        next_attempt_at: outcome.nextAttemptAt,
        last_status: outcome.lastStatus,
        last_error: outcome.lastError,
        lease_until: null,
        ...(outcome.state === 'delivered' ? { delivered_at: outcome.at } : {})
      }).where('id', '=', id).execute()
    },

    async hasDue (runId) {
      const row = await db.selectFrom('run_callbacks').select('id').where('run_id', '=', runId).where('state', '=', 'pending')
        .where('run_id', 'in', (eb) => eb.selectFrom('runs').select('id').where('finished_at', 'is not', null)).executeTakeFirst()
      return row !== undefined
    },

    async purgeOrphans (before, limit) {
      const orphans = db.selectFrom('run_callbacks').select('id').where('created_at', '<', before)
        .where('run_id', 'not in', (eb) => eb.selectFrom('runs').select('id')).orderBy('created_at').limit(limit)
      const result = await db.deleteFrom('run_callbacks').where('id', 'in', orphans).executeTakeFirst()
      return Number(result.numDeletedRows)
    }
  }
}
