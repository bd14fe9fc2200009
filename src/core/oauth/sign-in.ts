import { randomBytes } from 'node:crypto'
import type { OAuthRepository } from '../ledger/oauth/oauth-repository.js'
import { hashSecret } from '../ledger/secrets.js'

const MODEL = 'WalletSignIn'

/** How long a one-time sign-in link works. */
export const SIGN_IN_TTL_SECONDS = 600

/** The path of a one-time sign-in link. */
export const SIGN_IN_PATH = '/oauth/sign-in'

/**
 * A one-time sign-in code for a wallet, so its holder can consent without pasting the wallet key into
 * a browser (`npm run wallet -- sign-in`). Stored hashed; good for SIGN_IN_TTL_SECONDS, once.
 */
export async function createSignInCode (repository: OAuthRepository, walletId: string): Promise<string> {
  const code = `sic_${randomBytes(24).toString('base64url')}`
  await repository.upsert(MODEL, hashSecret(code), {
    payload: { walletId },
    grantId: null,
    uid: null,
    expiresAt: new Date(Date.now() + SIGN_IN_TTL_SECONDS * 1000).toISOString()
  })
  return code
}

/** The wallet a sign-in code names, the first time it is redeemed; null if unknown, expired or used. */
export async function redeemSignInCode (repository: OAuthRepository, code: string): Promise<string | null> {
  const id = hashSecret(code)
  const record = await repository.find(MODEL, id)
  if (record === null || !await repository.consume(MODEL, id)) return null
  return typeof record.payload.walletId === 'string' ? record.payload.walletId : null
}
