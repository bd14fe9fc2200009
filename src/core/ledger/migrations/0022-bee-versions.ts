import { type Kysely, type Migration } from 'kysely'

/**
 * A published Bee's semantic version, and the versions it had before. published_bees keeps the current one (what an
 * unpinned call, a listing and the sync read, unchanged); a change of schema or endpoint copies the row's
 * versioned part into bee_versions before it writes the next, so a caller pinned to an earlier version is still served
 * it. Bees published before versions existed are 1.0.0.
 */
export const beeVersionsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('published_bees').addColumn('semver', 'text', (c) => c.notNull().defaultTo('1.0.0')).execute()
    await db.schema.createTable('bee_versions')
      .addColumn('bee_id', 'text', (c) => c.notNull())
      .addColumn('semver', 'text', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('input_schema', 'text', (c) => c.notNull())
      .addColumn('output_schema', 'text', (c) => c.notNull())
      .addColumn('replaced_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('bee_versions_pkey', ['bee_id', 'semver'])
      .execute()
  }
}
