import type { Pool } from 'pg'
import { later } from '../timestamps.js'
import type { Debit, Debited } from './debit.js'

/**
 * PostgreSQL: one statement and one round trip per hold: the conditional debit, the journal row, the
 * hold's state and its link to the idempotency claim together in a data-modifying CTE. The WHERE is
 * re-checked on the locked row, so concurrent holds, from any instance, never overdraw. It is a named
 * statement, so each connection parses and plans it once. (Batching holds into one transaction was
 * measured slower here: it adds BEGIN and COMMIT round trips and holds the wallet's row lock across
 * the batch.)
 */
const HOLD_SQL = `
  WITH debited AS (
    UPDATE wallets SET balance = balance - $1
    WHERE token_hash = $2 AND currency = $3 AND frozen = 0 AND balance >= $1
    RETURNING id, balance
  ), entry AS (
    INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, created_at)
    SELECT id, 'hold', $1, $4, $5, $6, $7 FROM debited
    RETURNING id, wallet_id
  ), linked AS (
    UPDATE idempotency_keys SET hold_id = entry.id FROM entry WHERE scope = $9 AND key = $6
  )
  INSERT INTO holds (id, wallet_id, amount, state, expires_at)
  SELECT id, wallet_id, $1, 'pending', $8 FROM entry
  RETURNING id, wallet_id, (SELECT balance FROM debited) AS balance`

/** The capture the same way: settle only a pending hold, journal it, store the answer, in one statement. */
const CAPTURE_SQL = `
  WITH settled AS (
    UPDATE holds SET state = 'captured' WHERE id = $1 AND state = 'pending' RETURNING id
  ), entry AS (
    INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, hold_id, created_at)
    SELECT hold.wallet_id, 'capture', hold.amount, hold.bee_id, $2, hold.idempotency_key, hold.id, $3
    FROM journal hold JOIN settled ON settled.id = hold.id
    RETURNING id
  ), completed AS (
    UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5
    WHERE scope = $6 AND key = $7 AND EXISTS (SELECT 1 FROM entry)
  )
  SELECT id FROM entry`

export function postgresDebit (pool: Pool): Debit {
  return {
    async hold (request) {
      const { rows } = await pool.query<Debited>({
        name: 'apiary-hold',
        text: HOLD_SQL,
        values: [
          request.micros, request.tokenHash, request.currency, request.beeId, request.requestId,
          request.claim?.key ?? null, new Date().toISOString(), later(request.expiresInSeconds), request.claim?.scope ?? null
        ]
      })
      return rows[0]
    },
    async capture ({ holdId, requestId, completion }) {
      const { rows } = await pool.query({
        name: 'apiary-capture',
        text: CAPTURE_SQL,
        values: [
          holdId, requestId, new Date().toISOString(),
          completion?.status ?? null, completion?.body ?? null, completion?.scope ?? null, completion?.key ?? null
        ]
      })
      return rows.length === 1
    }
  }
}
