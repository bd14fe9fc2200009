import type { Kysely } from 'kysely'
import type { Tables } from '../tables.js'
import { later, now } from '../timestamps.js'
import type { IdempotencyRepository } from './idempotency-repository.js'

/** Idempotency keys over Kysely: the same queries serve SQLite and PostgreSQL. */
export function sqlIdempotencyRepository (db: Kysely<Tables>): IdempotencyRepository {
  return {
    async claim ({ scope, key, requestHash, ttlSeconds, leaseSeconds }) {
      const claimedAt = now()
      const inserted = await db.insertInto('idempotency_keys').values({
        scope, key, request_hash: requestHash, state: 'in-flight', locked_at: claimedAt, expires_at: later(ttlSeconds)
      }).onConflict((oc) => oc.columns(['scope', 'key']).doNothing()).returning('key').executeTakeFirst()
      if (inserted !== undefined) return { state: 'claimed', holdId: null }

      const existing = await db.selectFrom('idempotency_keys').selectAll()
        .where('scope', '=', scope).where('key', '=', key).executeTakeFirst()
      if (existing === undefined) return { state: 'in-flight' }
      const expired = existing.expires_at <= claimedAt
      const sameRequest = existing.request_hash === requestHash
      // Only the same request takes over an abandoned claim: it inherits the claim's hold, priced for that request.
      const abandoned = sameRequest && existing.state === 'in-flight' &&
        existing.locked_at <= new Date(Date.now() - leaseSeconds * 1000).toISOString()
      if (expired || abandoned) {
        // Take over only if nobody else did in between: the update matches the row as we read it.
        const taken = await db.updateTable('idempotency_keys')
          .set({
            request_hash: requestHash,
            state: 'in-flight',
            response_status: null,
            response_body: null,
            locked_at: claimedAt,
            expires_at: later(ttlSeconds),
            hold_id: expired ? null : existing.hold_id
          })
          .where('scope', '=', scope).where('key', '=', key).where('locked_at', '=', existing.locked_at)
          .returning('hold_id').executeTakeFirst()
        if (taken === undefined) return { state: 'in-flight' }
        return { state: 'claimed', holdId: taken.hold_id === null ? null : Number(taken.hold_id) }
      }
      if (!sameRequest) return { state: 'mismatch' }
      if (existing.state === 'in-flight') return { state: 'in-flight' }
      return { state: 'replay', status: Number(existing.response_status), body: existing.response_body ?? '' }
    },

    async complete ({ scope, key, status, body }) {
      await db.updateTable('idempotency_keys').set({ state: 'done', response_status: status, response_body: body })
        .where('scope', '=', scope).where('key', '=', key).execute()
    },

    async release (scope, key) {
      await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key)
        .where('state', '=', 'in-flight').execute()
    },

    async purgeExpired () {
      const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now()).executeTakeFirst()
      return Number(result.numDeletedRows)
    }
  }
}
