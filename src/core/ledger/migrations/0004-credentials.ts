import { type Kysely, type Migration } from 'kysely'

/** Signing-secret rotation: the replaced secret keeps signing, next to the new one, until it expires. */
export const credentialsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('published_bees').addColumn('previous_signing_secret', 'text').execute()
    await db.schema.alterTable('published_bees').addColumn('previous_secret_expires_at', 'text').execute()
  }
}
