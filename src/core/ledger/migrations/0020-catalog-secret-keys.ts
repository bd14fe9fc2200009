import { type Kysely, type Migration, sql } from 'kysely'
import { SEALED_KEY_PREFIX_LENGTH } from '../secrets.js'

/**
 * Lets a start find the signing secrets that are not sealed with the current SECRETS_KEY (to reseal them) without
 * reading every Bee: an index on the part of each sealed value that names its key, and one on the few Bees that
 * still keep a previous secret. Without them the check read the whole catalog at every start (45 ms at 100,000
 * Bees on PostgreSQL), a cost that grew with the catalog. The query that uses them is staleSecrets, in
 * stale-secrets.ts; its expression must stay the index's, character for character.
 */
export const catalogSecretKeyMigration: Migration = {
  async up (db: Kysely<any>) {
    await sql`CREATE INDEX published_bees_by_secret_key ON published_bees ((substr(signing_secret, 1, ${sql.lit(SEALED_KEY_PREFIX_LENGTH)})))`.execute(db)
    await sql`CREATE INDEX published_bees_with_previous_secret ON published_bees (id) WHERE previous_signing_secret IS NOT NULL`.execute(db)
  }
}
