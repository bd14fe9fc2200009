import { type Kysely, type Migration, sql } from 'kysely'
import { SEALED_KEY_PREFIX_LENGTH } from '../secrets.js'

/**
 * A Bee imported from an OpenAPI operation keeps how its calls become the upstream's own requests (a JSON
 * RequestMapping) and the upstream's credential, sealed under SECRETS_KEY like its signing secret. Both are null for a
 * Bee published to Apiary's own contract. Columns, not a table: the sync loads a Bee and its mapping in one read. The
 * index lets a start find the credentials sealed with another key (staleCredentials) without reading every Bee, as
 * 0020's does for signing secrets; its expression must stay the query's, character for character.
 */
export const importMappingsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('published_bees').addColumn('upstream_mapping', 'text').execute()
    await db.schema.alterTable('published_bees').addColumn('upstream_credential', 'text').execute()
    await sql`CREATE INDEX published_bees_by_credential_key ON published_bees ((substr(upstream_credential, 1, ${sql.lit(SEALED_KEY_PREFIX_LENGTH)})))
      WHERE upstream_credential IS NOT NULL`.execute(db)
  }
}
