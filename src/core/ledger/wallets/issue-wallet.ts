import { randomBytes } from 'node:crypto'
import type { Static } from 'typebox'
import type { CreatedWallet } from '../../schemas.js'
import { hashSecret, newSecret } from '../secrets.js'
import type { BalanceLimitExceeded, WalletRepository } from './wallet-repository.js'

export interface WalletRequest {
  micros: number
  currency: string
  label: string | null
  requestId?: string | null
}

/** Creates a wallet with a fresh token. The token is returned here once and stored only as its hash. */
export async function issueWallet (
  wallets: WalletRepository, request: WalletRequest
): Promise<{ ok: true, wallet: Static<typeof CreatedWallet> } | BalanceLimitExceeded> {
  const token = newSecret('awt')
  const created = await wallets.create({
    id: `wal_${randomBytes(12).toString('base64url')}`,
    tokenHash: hashSecret(token),
    micros: request.micros,
    currency: request.currency,
    label: request.label,
    requestId: request.requestId ?? null
  })
  return created.ok ? { ok: true, wallet: { ...created.wallet, token } } : created
}
