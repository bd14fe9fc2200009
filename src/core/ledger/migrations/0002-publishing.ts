import { type Kysely, type Migration, sql } from 'kysely'
import type { Dialect } from '../dialect.js'
import { moneyType } from './column-types.js'

/** Publishers (their keys stored hashed) and the Bees they publish, each with the secret that signs its calls. */
export function publishingMigration (dialect: Dialect): Migration {
  const money = moneyType(dialect)
  return {
    async up (db: Kysely<any>) {
      await db.schema.createTable('publishers')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createTable('published_bees')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('owner_id', 'text', (c) => c.notNull().references('publishers.id'))
        .addColumn('owner_email', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('category', 'text', (c) => c.notNull())
        .addColumn('colony', 'text', (c) => c.notNull())
        .addColumn('endpoint', 'text', (c) => c.notNull())
        .addColumn('input_schema', 'text', (c) => c.notNull())
        .addColumn('output_schema', 'text', (c) => c.notNull())
        .addColumn('primary_services', 'text', (c) => c.notNull())
        .addColumn('pricing_type', 'text', (c) => c.notNull())
        .addColumn('cost_micros', money, (c) => c.notNull().check(sql`cost_micros >= 0`))
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'inactive', 'deprecated')`))
        .addColumn('status_message', 'text')
        .addColumn('sunset_at', 'text')
        .addColumn('signing_secret', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createIndex('published_bees_by_owner').on('published_bees').column('owner_id').execute()
      await db.schema.createTable('builtin_bee_states')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('status_message', 'text')
        .addColumn('sunset_at', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute()
      await db.schema.createTable('catalog_version')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('version', 'integer', (c) => c.notNull())
        .execute()
      await db.insertInto('catalog_version').values({ id: 1, version: 0 }).execute()
    }
  }
}
