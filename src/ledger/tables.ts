import type { Generated } from 'kysely'

/**
 * The stored tables, as Kysely sees them. Money columns are integer micro-units; times are ISO 8601
 * UTC strings, which sort and compare correctly as text on both backends.
 */
export interface Tables {
  wallets: {
    id: string
    token_hash: string
    balance: number
    currency: string
    label: string | null
    frozen: number
    created_at: string
  }
  journal: {
    id: Generated<number>
    wallet_id: string
    kind: 'deposit' | 'charge' | 'refund'
    amount: number
    bee_id: string | null
    request_id: string | null
    idempotency_key: string | null
    refund_of: number | null
    created_at: string
  }
  idempotency_keys: {
    scope: string
    key: string
    request_hash: string
    state: 'in-flight' | 'done'
    response_status: number | null
    response_body: string | null
    locked_at: string
    expires_at: string
  }
}
