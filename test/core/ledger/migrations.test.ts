import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { postgresSkip } from '../../databases.js'

test('a store migrates while other schemas of its database are created and dropped (PostgreSQL)', { skip: postgresSkip }, async (t) => {
  // Another deployment, or a parallel test, on the same database: Kysely's look for its tables reads every schema's.
  // A database of its own, so that the churn reaches no other test's migrations.
  const server = new URL(process.env.TEST_DATABASE_URL as string)
  const name = `apiary_churn_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: server.toString() })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  t.teardown(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  })
  const database = new URL(server)
  database.pathname = `/${name}`
  const churn = new pg.Client({ connectionString: database.toString() })
  await churn.connect()
  const churning = { stopped: false }
  let dropped = 0
  const done = (async () => {
    while (!churning.stopped) {
      const schema = `churn_${randomBytes(6).toString('hex')}`
      await churn.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.t (id bigserial PRIMARY KEY, a text, b text, c text)`)
      await churn.query(`DROP SCHEMA ${schema} CASCADE`)
      dropped++
    }
  })()
  t.teardown(async () => { churning.stopped = true; await done; await churn.end() })
  for (let i = 0; i < 12; i++) {
    const schema = `store_${i}`
    await churn.query(`CREATE SCHEMA ${schema}`)
    const url = new URL(database)
    url.searchParams.set('options', `-c search_path=${schema}`)
    const store = await openStore(url.toString())
    await store.close()
  }
  t.ok(dropped > 12, `12 stores migrated from empty while ${dropped} other schemas came and went`)
})
