import { errors, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose'
import { LRUCache } from 'lru-cache'
import { hashSecret } from '../ledger/secrets.js'
import type { WalletToken } from '../ledger/tokens/token-repository.js'
import { fromMicros } from '../money.js'
import type { SigningKeyring } from './keyring.js'

/** The `iss` of every token; a gateway checks it (see docs/payments/tokens.md). */
export const TOKEN_ISSUER = 'apiary'

export type Verified =
  | { ok: true, walletId: string, tokenId: string }
  | { ok: false, reason: 'TOKEN_INVALID' | 'TOKEN_EXPIRED' }

/** How many verified tokens are remembered (a few hundred bytes each): the tokens in use at once on a busy instance. */
const REMEMBERED_TOKENS = 4096

interface Remembered { walletId: string, tokenId: string, exp: number }

const EXPIRED: Verified = { ok: false, reason: 'TOKEN_EXPIRED' }

/** The claims that copy a token's terms, for gateways that read them offline; the same on every verification token. */
export function termsClaims (token: WalletToken, currency: string) {
  return {
    cap: fromMicros(token.capMicros),
    perCallCap: token.perCallCapMicros === null ? null : fromMicros(token.perCallCapMicros),
    currency,
    bees: token.bees,
    categories: token.categories,
    parent: token.parentId
  }
}

/**
 * Signs tokens with the keyring's current key and verifies them in-process against its cached public
 * keys. The claims name the wallet (`sub`), the token (`jti`) and its expiry; the caps and the
 * allow-list are copied in for gateways that read them offline, but the ledger's row is what is enforced.
 */
export class TokenSigner {
  readonly #keyring: SigningKeyring
  readonly #getKey: JWTVerifyGetKey
  /**
   * Tokens whose signature checked out, by the SHA-256 of the token and the audience: a call checks its
   * token twice (rate limit, payment) and an agent presents one token call after call, while an Ed25519
   * verification costs more than the rest of the payment step. The digest keeps the tokens themselves
   * out of memory, as the ledger keeps wallet keys. What a signature proves cannot change (a public key,
   * once loaded, stays), so only the expiry is checked again, as jose checks it; a failure is never
   * remembered, and revocation and caps are the ledger's, checked with every hold.
   */
  readonly #verified = new LRUCache<string, Remembered>({ max: REMEMBERED_TOKENS })

  constructor (keyring: SigningKeyring) {
    this.#keyring = keyring
    this.#getKey = async (header) => {
      const key = header.kid === undefined ? null : await keyring.publicKey(header.kid)
      if (key === null) throw new errors.JWKSNoMatchingKey()
      return key
    }
  }

  async sign (token: WalletToken, currency: string): Promise<string> {
    const { kid, key } = await this.#keyring.signingKey()
    return await new SignJWT(termsClaims(token, currency))
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
      .setIssuer(TOKEN_ISSUER)
      .setSubject(token.walletId)
      .setJti(token.id)
      .setIssuedAt(Math.floor(this.#keyring.now() / 1000))
      .setExpirationTime(Math.floor(Date.parse(token.expiresAt) / 1000))
      .sign(key)
  }

  /**
   * Checks the signature, issuer and expiry (no database round trip once the key is cached), and the
   * audience when one is named: a token minted for OAuth is good only at the resource it was granted for.
   */
  async verify (jws: string, audience?: string): Promise<Verified> {
    const digest = `${hashSecret(jws)} ${audience ?? ''}`
    // jose's rule: expired when exp is not after the current second.
    const nowSeconds = Math.floor(this.#keyring.now() / 1000)
    const remembered = this.#verified.get(digest)
    if (remembered !== undefined) {
      return remembered.exp <= nowSeconds ? EXPIRED : { ok: true, walletId: remembered.walletId, tokenId: remembered.tokenId }
    }
    try {
      const { payload } = await jwtVerify(jws, this.#getKey, {
        algorithms: ['EdDSA'],
        issuer: TOKEN_ISSUER,
        audience,
        requiredClaims: ['sub', 'jti', 'exp'],
        currentDate: new Date(this.#keyring.now())
      })
      const verified = { walletId: payload.sub as string, tokenId: payload.jti as string }
      // A not-before time would be one more clock check; these tokens carry none, so one that does is not remembered.
      if (payload.nbf === undefined) this.#verified.set(digest, { ...verified, exp: payload.exp as number })
      return { ok: true, ...verified }
    } catch (error) {
      return { ok: false, reason: error instanceof errors.JWTExpired ? 'TOKEN_EXPIRED' : 'TOKEN_INVALID' }
    }
  }
}
