import type { Kysely, Migration } from 'kysely'

/**
 * A2A's push notification configs as run callbacks: what a delivery's body is (`format`: the run webhook, or A2A's
 * task in 1.0's or 0.3's shape), the config's id within its task (unique per run; null for a run webhook), the task
 * id its caller knows (sealed: a free Bee's carries its run key), and the Authorization to send (its scheme, and its
 * credentials sealed).
 */
export const pushConfigsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('run_callbacks').addColumn('format', 'text', (c) => c.notNull().defaultTo('webhook')).execute()
    await db.schema.alterTable('run_callbacks').addColumn('config_id', 'text').execute()
    await db.schema.alterTable('run_callbacks').addColumn('task_id', 'text').execute()
    await db.schema.alterTable('run_callbacks').addColumn('auth_scheme', 'text').execute()
    await db.schema.alterTable('run_callbacks').addColumn('auth_credentials', 'text').execute()
    await db.schema.createIndex('run_callbacks_config').on('run_callbacks').columns(['run_id', 'config_id']).unique().execute()
  }
}
