import { randomBytes } from 'node:crypto'
import { exportJWK, generateKeyPair, importJWK } from 'jose'
import type { Jwk, SigningKey, SigningKeyRepository } from '../ledger/signing-keys/signing-key-repository.js'

/** Longest a verification token may live: a signing key stays published this long after it stops signing. */
export const MAX_TOKEN_LIFETIME_SECONDS = 90 * 24 * 3600

/** How often an unknown kid may send the keyring back to the database, so forged kids cannot hammer it. */
const RELOAD_INTERVAL_MS = 1000

export interface KeyringOptions {
  /** A new key signs after this many seconds (TOKEN_KEY_ROTATION_DAYS). */
  rotationSeconds: number
  /** Milliseconds since the epoch; a test's clock moves rotation along. */
  clock?: () => number
}

type CryptoKey = Awaited<ReturnType<typeof importJWK>>

/**
 * The Ed25519 keys tokens are signed with, shared by every instance through the ledger. Time is cut
 * into rotation slots; the key of the current slot signs, created by whichever instance needs it first
 * (the slot is unique: the others use the winner's). A key stays published, and verifies, until every
 * token it can have signed has expired (its slot's end plus the longest lifetime). Public keys are
 * cached by kid, so verifying a token costs no database round trip once its key is known.
 */
export class SigningKeyring {
  readonly #keys: SigningKeyRepository
  readonly #rotationSeconds: number
  readonly #clock: () => number
  #signing: Promise<{ slot: string, kid: string, key: CryptoKey, privateJwk: Jwk }> | null = null
  readonly #public = new Map<string, CryptoKey>()
  #loadedAt = -Infinity

  constructor (keys: SigningKeyRepository, options: KeyringOptions) {
    this.#keys = keys
    this.#rotationSeconds = options.rotationSeconds
    this.#clock = options.clock ?? Date.now
  }

  now (): number {
    return this.#clock()
  }

  /** The key that signs now, its kid, and its private JWK (which the OAuth server signs access tokens with). */
  async signingKey (): Promise<{ kid: string, key: CryptoKey, privateJwk: Jwk }> {
    const slotNumber = Math.floor(this.#clock() / 1000 / this.#rotationSeconds)
    const slot = `${this.#rotationSeconds}:${slotNumber}`
    const current = await this.#signing
    if (current?.slot === slot) return current
    this.#signing = (async () => {
      const stored = await this.#keys.forSlot(slot, () => this.#generate(slotNumber))
      return { slot, kid: stored.kid, key: await importJWK(stored.privateJwk, 'EdDSA'), privateJwk: stored.privateJwk }
    })()
    // A failure is not cached: the next call tries again.
    this.#signing.catch(() => { this.#signing = null })
    return await this.#signing
  }

  /** The public key with this kid, if it is published; null for an unknown (or retired) kid. */
  async publicKey (kid: string): Promise<CryptoKey | null> {
    const cached = this.#public.get(kid)
    if (cached !== undefined) return cached
    if (this.#clock() - this.#loadedAt < RELOAD_INTERVAL_MS) return null
    this.#loadedAt = this.#clock()
    for (const key of await this.#keys.published(new Date(this.#clock()).toISOString())) {
      if (!this.#public.has(key.kid)) this.#public.set(key.kid, await importJWK(key.publicJwk, 'EdDSA'))
    }
    return this.#public.get(kid) ?? null
  }

  /** The published public keys, as a JWK Set. */
  async jwks (): Promise<{ keys: Jwk[] }> {
    const keys = await this.#keys.published(new Date(this.#clock()).toISOString())
    return { keys: keys.map((key) => key.publicJwk) }
  }

  async #generate (slotNumber: number): Promise<SigningKey> {
    const kid = `${slotNumber.toString(36)}-${randomBytes(6).toString('base64url')}`
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
    const slotEndsMs = (slotNumber + 1) * this.#rotationSeconds * 1000
    return {
      kid,
      publicJwk: { ...await exportJWK(publicKey), kid, alg: 'EdDSA', use: 'sig' },
      privateJwk: { ...await exportJWK(privateKey), kid, alg: 'EdDSA' },
      retireAt: new Date(slotEndsMs + MAX_TOKEN_LIFETIME_SECONDS * 1000).toISOString()
    }
  }
}
