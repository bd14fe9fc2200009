import { type Kysely, sql } from 'kysely'
import { SEALED_KEY_PREFIX_LENGTH } from '../secrets.js'
import type { Tables } from '../tables.js'

type SecretColumn = 'signing_secret' | 'previous_signing_secret' | 'upstream_credential'

/** The part of a stored secret that names its key: the expression the 0020 and 0023 migrations index, character for character. */
const keyOf = (column: SecretColumn) => sql`substr(${sql.ref(column)}, 1, ${sql.lit(SEALED_KEY_PREFIX_LENGTH)})`

/** `<` or `>`, not `<>`: an index answers a range, not an inequality. */
const notSealedWith = (column: SecretColumn, prefix: string) => sql<boolean>`(${keyOf(column)} < ${prefix} OR ${keyOf(column)} > ${prefix})`

const columns = ['id', 'signing_secret', 'previous_signing_secret', 'previous_secret_expires_at'] as const

/**
 * The Bees with a signing secret to reseal: not sealed with the key whose prefix is `prefix` (under an older key, or
 * plaintext), or keeping a previous secret that is, or whose overlap ended by `now`. Read through the indexes of
 * secret-key-migration.ts, so a start reads only the rows with work to do, and none of a catalog sealed with the
 * current key, whatever its size: the scan it replaced read 100,000 rows to find none in 45 ms of every PostgreSQL
 * start. Two queries in one, each answered by its own index (one OR of both made SQLite read the whole table), so a
 * Bee found by both comes twice.
 */
export function staleSecrets (db: Kysely<Tables>, prefix: string, now: string) {
  return db.selectFrom('published_bees').select(columns).where(notSealedWith('signing_secret', prefix))
    .unionAll(db.selectFrom('published_bees').select(columns).where((eb) => eb.and([
      eb('previous_signing_secret', 'is not', null),
      eb.or([notSealedWith('previous_signing_secret', prefix), eb('previous_secret_expires_at', '<=', now)])
    ])))
}

/** The imported Bees whose upstream credential is sealed with another key than `prefix`'s, through the 0023 migration's index. */
export function staleCredentials (db: Kysely<Tables>, prefix: string) {
  return db.selectFrom('published_bees').select(['id', 'upstream_credential'])
    .where('upstream_credential', 'is not', null).where(notSealedWith('upstream_credential', prefix))
}
