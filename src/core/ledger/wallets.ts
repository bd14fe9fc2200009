import { randomBytes } from 'node:crypto'
import type { CreatedWallet } from '../schemas.js'
import { hashSecret, newSecret } from './secrets.js'
import type { LedgerStore } from './store.js'
import type { Static } from 'typebox'

export interface WalletRequest {
  micros: number
  currency: string
  label: string | null
  requestId?: string | null
}

/** Creates a wallet with a fresh token. The token is returned here once and stored only as its hash. */
export async function issueWallet (ledger: LedgerStore, request: WalletRequest): Promise<Static<typeof CreatedWallet>> {
  const token = newSecret('awt')
  const wallet = await ledger.createWallet({
    id: `wal_${randomBytes(12).toString('base64url')}`,
    tokenHash: hashSecret(token),
    micros: request.micros,
    currency: request.currency,
    label: request.label,
    requestId: request.requestId ?? null
  })
  return { ...wallet, token }
}
