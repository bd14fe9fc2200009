import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { postgresBackend, postgresSkip } from '../../databases.js'

test('a store migrates while other schemas of its database are created and dropped (PostgreSQL)', { skip: postgresSkip }, async (t) => {
  // Another deployment, or a parallel test, on the same database: Kysely's look for its tables reads every schema's.
  const churn = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await churn.connect()
  const churning = { stopped: false }
  let dropped = 0
  const done = (async () => {
    while (!churning.stopped) {
      const schema = `apiary_churn_${randomBytes(6).toString('hex')}`
      await churn.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.t (id bigserial PRIMARY KEY, a text, b text, c text)`)
      await churn.query(`DROP SCHEMA ${schema} CASCADE`)
      dropped++
    }
  })()
  t.teardown(async () => { churning.stopped = true; await done; await churn.end() })
  for (let i = 0; i < 12; i++) {
    const database = await postgresBackend()
    const store = await openStore(database.url)
    await store.close()
    await database.drop()
  }
  t.ok(dropped > 12, `12 stores migrated from empty while ${dropped} other schemas came and went`)
})
