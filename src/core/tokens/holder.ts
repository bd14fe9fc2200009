import { failureAs } from '../errors.js'
import type { Ledger } from '../ledger/ledger.js'
import { hashSecret } from '../ledger/secrets.js'
import type { WalletToken } from '../ledger/tokens/token-repository.js'
import { WALLET_HEADER_NAME } from '../schemas.js'
import { isVerificationToken } from './shape.js'
import type { TokenSigner } from './verifier.js'

/** Who manages tokens: a wallet (by its key), or a token (by itself), which manages only itself and its descendants. */
export interface TokenHolder {
  walletId: string
  currency: string
  /** The presenting token; null when the wallet key was presented. */
  token: WalletToken | null
}

/** What a refused token is told, by reason; each says what to do. Shared by the payment step (402) and the token routes (401). */
export const TOKEN_REFUSALS = {
  TOKEN_INVALID: `The verification token in ${WALLET_HEADER_NAME} is not one this service signed (or it was altered). Ask its holder for a new one.`,
  TOKEN_EXPIRED: `The verification token in ${WALLET_HEADER_NAME} (or one it was minted from) has expired. Ask its holder for a new one.`,
  TOKEN_REVOKED: `The verification token in ${WALLET_HEADER_NAME} (or one it was minted from) was revoked. Ask its holder for a new one.`
} as const

export type TokenRefusal = keyof typeof TOKEN_REFUSALS

/** The ledger's word on a token whose signature checked out: null when it may act, else why not. */
export function tokenState (token: WalletToken | null, nowMs: number): TokenRefusal | null {
  if (token === null) return 'TOKEN_INVALID'
  if (token.revokedAt !== null) return 'TOKEN_REVOKED'
  if (Date.parse(token.expiresAt) <= nowMs) return 'TOKEN_EXPIRED'
  return null
}

/**
 * The holder a wallet credential names: a wallet key is looked up by its hash; a verification token
 * is verified, then its row read (revocation lives there). Refusals are 401s.
 */
export async function holderOf (ledger: Ledger, signer: TokenSigner, credential: string, nowMs: number): Promise<TokenHolder> {
  if (!isVerificationToken(credential)) {
    const wallet = await ledger.wallets.getByToken(hashSecret(credential))
    if (wallet === null) throw failureAs('WALLET_NOT_FOUND', 401, `No wallet has the token in ${WALLET_HEADER_NAME}.`)
    return { walletId: wallet.id, currency: wallet.currency, token: null }
  }
  const verified = await signer.verify(credential)
  if (!verified.ok) throw failureAs(verified.reason, 401, TOKEN_REFUSALS[verified.reason])
  const token = await ledger.tokens.get(verified.tokenId)
  const refused = tokenState(token, nowMs)
  if (refused !== null) throw failureAs(refused, 401, TOKEN_REFUSALS[refused])
  const wallet = await ledger.wallets.get(verified.walletId)
  if (wallet === null) throw failureAs('TOKEN_INVALID', 401, TOKEN_REFUSALS.TOKEN_INVALID)
  return { walletId: wallet.id, currency: wallet.currency, token }
}

/**
 * Does the credential a call presented name a wallet (a wallet key that exists, or a token that is
 * valid and neither expired nor revoked)? What lets a free call store its answer under an Idempotency-Key.
 */
export async function presentsWallet (
  ledger: Ledger, signer: TokenSigner, tokenHash: string, verificationToken: string | null, nowMs: number
): Promise<boolean> {
  if (verificationToken === null) return await ledger.wallets.getByToken(tokenHash) !== null
  const verified = await signer.verify(verificationToken)
  return verified.ok && tokenState(await ledger.tokens.get(verified.tokenId), nowMs) === null
}
