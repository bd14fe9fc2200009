import type { Kysely } from 'kysely'
import type { Tables } from '../tables.js'
import { now } from '../timestamps.js'
import type { OAuthRecord, OAuthRepository } from './oauth-repository.js'

type Row = Tables['oauth_models']

const recordOf = (row: Row): OAuthRecord => ({
  payload: JSON.parse(row.payload) as Record<string, unknown>,
  grantId: row.grant_id,
  uid: row.uid,
  expiresAt: row.expires_at,
  consumedAt: row.consumed_at
})

/** The authorization server's models over Kysely; one statement per operation, on both databases. */
export function sqlOAuthRepository (db: Kysely<Tables>): OAuthRepository {
  const live = async (rows: Row[]) => {
    const row = rows[0]
    if (row === undefined) return null
    if (row.expires_at !== null && row.expires_at <= now()) {
      await db.deleteFrom('oauth_models').where('model', '=', row.model).where('id', '=', row.id).execute()
      return null
    }
    return recordOf(row)
  }
  return {
    async upsert (model, id, record) {
      const values = {
        payload: JSON.stringify(record.payload),
        grant_id: record.grantId,
        uid: record.uid,
        expires_at: record.expiresAt
      }
      await db.insertInto('oauth_models').values({ model, id, consumed_at: null, ...values })
        .onConflict((conflict) => conflict.columns(['model', 'id']).doUpdateSet(values)).execute()
    },

    async find (model, id) {
      return await live(await db.selectFrom('oauth_models').selectAll().where('model', '=', model).where('id', '=', id).execute())
    },

    async findByUid (model, uid) {
      return await live(await db.selectFrom('oauth_models').selectAll().where('model', '=', model).where('uid', '=', uid).limit(1).execute())
    },

    async consume (model, id) {
      const result = await db.updateTable('oauth_models').set({ consumed_at: now() })
        .where('model', '=', model).where('id', '=', id).where('consumed_at', 'is', null).executeTakeFirst()
      return result.numUpdatedRows > 0n
    },

    async destroy (model, id) {
      await db.deleteFrom('oauth_models').where('model', '=', model).where('id', '=', id).execute()
    },

    async revokeByGrantId (model, grantId) {
      await db.deleteFrom('oauth_models').where('model', '=', model).where('grant_id', '=', grantId).execute()
    }
  }
}
