import type { Pool } from 'pg'
import { feeSql, OPERATOR_ACCOUNT } from '../earnings/split.js'
import { later } from '../timestamps.js'
import type { Debit, Debited } from './debit.js'
import type { HoldRequest } from './hold-repository.js'
import { tokenRefusal, type TokenRow } from './token-hold.js'
import { walletRefusal } from './wallet-refusal.js'

/**
 * PostgreSQL: one statement and one round trip per hold: the conditional debit, the journal row, the
 * hold's state and its link to the idempotency claim together in a data-modifying CTE. The WHERE is
 * re-checked on the locked row, so concurrent holds, from any instance, never overdraw. It is a named
 * statement, so each connection parses and plans it once. (Batching holds into one transaction was
 * measured slower here: it adds BEGIN and COMMIT round trips and holds the wallet's row lock across
 * the batch.)
 */
const holdSql = (payer: 'wallet key' | 'token') => `
  WITH debited AS (
    UPDATE wallets SET balance = balance - $1
    WHERE ${payer === 'token' ? 'id' : 'token_hash'} = $2 AND currency = $3 AND frozen = 0 AND balance >= $1
    RETURNING id, balance
  ), ${payer === 'token' ? 'spent AS (UPDATE wallet_tokens SET spent = spent + $1 WHERE id = ANY($11::text[]) AND EXISTS (SELECT 1 FROM debited)), ' : ''}entry AS (
    INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, created_at)
    SELECT id, 'hold', $1, $4, $5, $6, $7 FROM debited
    RETURNING id, wallet_id
  ), linked AS (
    UPDATE idempotency_keys SET hold_id = entry.id FROM entry WHERE scope = $9 AND key = $6
  )
  INSERT INTO holds (id, wallet_id, amount, state, expires_at, payee${payer === 'token' ? ', token_id' : ''})
  SELECT id, wallet_id, $1, 'pending', $8, $10${payer === 'token' ? ', $12' : ''} FROM entry
  RETURNING id, wallet_id, (SELECT balance FROM debited) AS balance`

const HOLD_SQL = holdSql('wallet key')
const TOKEN_HOLD_SQL = holdSql('token')

/** A token and its ancestors (its path lists them), locked in id order: see lockTokens. */
const LINEAGE_SQL = `
  SELECT * FROM wallet_tokens
  WHERE id = ANY (string_to_array(trim(both '/' from (SELECT path FROM wallet_tokens WHERE id = $1)), '/'))
  ORDER BY id FOR UPDATE`

/**
 * The capture the same way: settle only a pending hold, journal it, credit the sale (and the fee) to
 * the earnings accounts, store the answer, in one statement. Earnings are appended rows, not a balance
 * updated in place, so captures of every Bee never wait on one another (see the earnings migration).
 */
const CAPTURE_SQL = `
  WITH settled AS (
    UPDATE holds SET state = 'captured' WHERE id = $1 AND state = 'pending' RETURNING id, wallet_id, amount, payee
  ), entry AS (
    INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, hold_id, created_at)
    SELECT hold.wallet_id, 'capture', hold.amount, hold.bee_id, $2, hold.idempotency_key, hold.id, $3
    FROM journal hold JOIN settled ON settled.id = hold.id
    RETURNING id, bee_id
  ), completed AS (
    UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5
    WHERE scope = $6 AND key = $7 AND EXISTS (SELECT 1 FROM entry)
  ), split AS (
    SELECT settled.payee, settled.amount, wallets.currency, entry.bee_id,
      CASE WHEN settled.payee = '${OPERATOR_ACCOUNT}' THEN 0 ELSE ${feeSql('settled.amount', '$8::bigint')} END AS fee
    FROM settled JOIN wallets ON wallets.id = settled.wallet_id CROSS JOIN entry
  ), earned AS (
    INSERT INTO earnings (account, currency, kind, amount, fee, bee_id, hold_id, request_id, created_at)
    SELECT payee, currency, 'sale', amount - fee, fee, bee_id, $1, $2, $3 FROM split
    UNION ALL
    SELECT '${OPERATOR_ACCOUNT}', currency, 'fee', fee, 0, bee_id, $1, $2, $3 FROM split WHERE fee > 0
  )
  SELECT id FROM entry`

const NOT_FOUND = { ok: false, reason: 'TOKEN_NOT_FOUND' } as const

/** `feeBps`: PLATFORM_FEE_BPS, the operator's share of a published Bee's sale. */
export function postgresDebit (pool: Pool, feeBps: number): Debit {
  const holdValues = (request: HoldRequest, payer: string) => [
    request.micros, payer, request.currency, request.beeId, request.requestId,
    request.claim?.key ?? null, new Date().toISOString(), later(request.expiresInSeconds), request.claim?.scope ?? null,
    request.payee ?? OPERATOR_ACCOUNT
  ]
  return {
    async hold (request) {
      const { rows } = await pool.query<Debited>({ name: 'apiary-hold', text: HOLD_SQL, values: holdValues(request, request.tokenHash) })
      return rows[0]
    },
    // Four round trips: BEGIN, the lineage locked, the debit with the spends in one statement, COMMIT.
    async holdWithToken (request, payer) {
      const client = await pool.connect()
      let debited: Debited | undefined
      let walletId: string
      try {
        await client.query('BEGIN')
        const { rows: lineage } = await client.query<TokenRow>({ name: 'apiary-token-lineage', text: LINEAGE_SQL, values: [payer.id] })
        const own = lineage.find((row) => row.id === payer.id)
        const refused = own === undefined ? NOT_FOUND : tokenRefusal(lineage, request, payer, new Date().toISOString())
        if (refused !== null) {
          await client.query('ROLLBACK')
          return refused
        }
        walletId = (own as TokenRow).wallet_id
        const { rows } = await client.query<Debited>({
          name: 'apiary-token-hold', text: TOKEN_HOLD_SQL, values: [...holdValues(request, walletId), lineage.map((row) => row.id), payer.id]
        })
        debited = rows[0]
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        throw error
      } finally {
        client.release()
      }
      if (debited !== undefined) return { ok: true, holdId: Number(debited.id), walletId: debited.wallet_id, balanceMicros: Number(debited.balance) }
      const { rows: [wallet] } = await pool.query('SELECT balance, currency, frozen FROM wallets WHERE id = $1', [walletId])
      return walletRefusal(wallet, request.currency)
    },
    async capture ({ holdId, requestId, completion }) {
      const { rows } = await pool.query({
        name: 'apiary-capture',
        text: CAPTURE_SQL,
        values: [
          holdId, requestId, new Date().toISOString(),
          completion?.status ?? null, completion?.body ?? null, completion?.scope ?? null, completion?.key ?? null, feeBps
        ]
      })
      return rows.length === 1
    }
  }
}
