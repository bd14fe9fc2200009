/** A JSON Web Key, as jose reads and writes it. */
export type Jwk = Record<string, unknown>

export interface SigningKey {
  kid: string
  publicJwk: Jwk
  privateJwk: Jwk
  /** When no token it signed can still be valid. */
  retireAt: string
}

export type PublicSigningKey = Omit<SigningKey, 'privateJwk'>

/** The service's token signing keys, one per rotation slot, shared by every instance on the database. */
export interface SigningKeyRepository {
  /**
   * The key of this rotation slot: the stored one, or `make`'s, stored now. When instances race to
   * create it, one insert wins and all of them use the winner's key.
   */
  forSlot (slot: string, make: () => Promise<SigningKey>): Promise<SigningKey>
  /** The public keys not retired at `at`, newest first. */
  published (at: string): Promise<PublicSigningKey[]>
}
