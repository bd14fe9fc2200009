import type { Kysely, Migration } from 'kysely'

/**
 * A Bee imported from an OpenAPI operation keeps how its calls become the upstream's own requests (a JSON
 * RequestMapping) and the upstream's credential, sealed under SECRETS_KEY like its signing secret. Both are null for a
 * Bee published to Apiary's own contract. Columns, not a table: the sync loads a Bee and its mapping in one read.
 */
export const importMappingsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('published_bees').addColumn('upstream_mapping', 'text').execute()
    await db.schema.alterTable('published_bees').addColumn('upstream_credential', 'text').execute()
  }
}
