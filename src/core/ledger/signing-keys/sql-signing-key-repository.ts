import type { Kysely } from 'kysely'
import type { SecretBox } from '../secrets.js'
import type { Tables } from '../tables.js'
import { now } from '../timestamps.js'
import type { Jwk, SigningKeyRepository } from './signing-key-repository.js'

/** Sealed private keys are bound to their kid: a ciphertext copied onto another row does not open. */
const contextOf = (kid: string) => `signing-key:${kid}`

/** Signing keys over Kysely; the private halves sealed with SECRETS_KEY (as publishers' signing secrets are). */
export function sqlSigningKeyRepository (db: Kysely<Tables>, box: SecretBox): SigningKeyRepository {
  const read = async (slot: string) => {
    const row = await db.selectFrom('signing_keys').selectAll().where('slot', '=', slot).executeTakeFirst()
    if (row === undefined) return undefined
    return {
      kid: row.kid,
      publicJwk: JSON.parse(row.public_jwk) as Jwk,
      privateJwk: JSON.parse(box.open(row.private_key, contextOf(row.kid))) as Jwk,
      retireAt: row.retire_at
    }
  }
  return {
    async forSlot (slot, make) {
      const stored = await read(slot)
      if (stored !== undefined) return stored
      const key = await make()
      await db.insertInto('signing_keys').values({
        kid: key.kid,
        slot,
        public_jwk: JSON.stringify(key.publicJwk),
        private_key: box.seal(JSON.stringify(key.privateJwk), contextOf(key.kid)),
        created_at: now(),
        retire_at: key.retireAt
      }).onConflict((conflict) => conflict.column('slot').doNothing()).execute()
      // Ours, or the one another instance stored first.
      const winner = await read(slot)
      if (winner === undefined) throw new Error(`signing key of slot ${slot} vanished`)
      return winner
    },

    async published (at) {
      const rows = await db.selectFrom('signing_keys').select(['kid', 'public_jwk', 'retire_at'])
        .where('retire_at', '>', at).orderBy('created_at', 'desc').orderBy('kid').execute()
      return rows.map((row) => ({ kid: row.kid, publicJwk: JSON.parse(row.public_jwk) as Jwk, retireAt: row.retire_at }))
    }
  }
}
