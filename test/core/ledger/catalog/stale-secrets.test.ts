import Database from 'better-sqlite3'
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely'
import pg from 'pg'
import { test } from 'tap'
import { staleSecrets } from '../../../../src/core/ledger/catalog/stale-secrets.js'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import { SEALED_KEY_PREFIX_LENGTH } from '../../../../src/core/ledger/secrets.js'
import type { Tables } from '../../../../src/core/ledger/tables.js'
import { type Backend, backends, runSql, storedBee } from '../../../databases.js'
import { SECRETS_KEY } from '../../../helper.js'

function kysely (backend: Backend): Kysely<Tables> {
  return new Kysely<Tables>({
    dialect: backend.name === 'sqlite'
      ? new SqliteDialect({ database: new Database(backend.url) })
      : new PostgresDialect({ pool: new pg.Pool({ connectionString: backend.url, max: 1 }) })
  })
}

/** The plan the database picks for a query, one line per step, with sequential scans made a last resort on PostgreSQL. */
async function plan (backend: Backend, text: string, parameters: readonly unknown[]): Promise<string> {
  if (backend.name === 'sqlite') {
    const database = new Database(backend.url, { readonly: true })
    try {
      return (database.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...parameters) as Array<{ detail: string }>).map((row) => row.detail).join('\n')
    } finally {
      database.close()
    }
  }
  const client = new pg.Client({ connectionString: backend.url })
  await client.connect()
  try {
    await client.query('SET enable_seqscan = off')
    return (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, [...parameters])).rows.map((row) => row['QUERY PLAN']).join('\n')
  } finally {
    await client.end()
  }
}

for (const backend of backends) {
  test(`a start finds the signing secrets to reseal through indexes, not by reading the catalog, on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())
    const at = new Date().toISOString()
    await store.catalog.createPublisher({ id: 'pub_1', email: 'a@example.com', name: 'A', createdAt: at, keyHash: 'h1' })
    const bee = (id: string, previous: { previousSigningSecret: string, previousSecretExpiresAt: string } | null) => storedBee(id, 'pub_1', at, {
      signingSecret: `bsk_${id}`,
      previousSigningSecret: previous?.previousSigningSecret ?? null,
      previousSecretExpiresAt: previous?.previousSecretExpiresAt ?? null
    })
    const later = new Date(Date.now() + 3_600_000).toISOString()
    const earlier = new Date(Date.now() - 1000).toISOString()
    for (const [id, previous] of [
      ['current', null],
      ['in-overlap', { previousSigningSecret: 'bsk_old', previousSecretExpiresAt: later }],
      ['overlap-over', { previousSigningSecret: 'bsk_old', previousSecretExpiresAt: earlier }],
      ['plaintext', null],
      ['other-key', null],
      ['previous-other-key', { previousSigningSecret: 'bsk_old', previousSecretExpiresAt: later }]
    ] as const) t.equal(await store.catalog.insertBee(bee(id, previous)), true)
    const [sealed] = await runSql(database, ["SELECT signing_secret FROM published_bees WHERE id = 'current'"]) as Array<{ signing_secret: string }>
    const prefix = String(sealed?.signing_secret).slice(0, SEALED_KEY_PREFIX_LENGTH)
    t.match(prefix, /^enc1:[0-9a-f]{8}:$/, 'a sealed value begins with the name of its key')
    const otherKey = (column: string) => `UPDATE published_bees SET ${column} = 'enc1:00000000:' || substr(${column}, ${SEALED_KEY_PREFIX_LENGTH + 1})`
    await runSql(database, [
      "UPDATE published_bees SET signing_secret = 'bsk_plaintext' WHERE id = 'plaintext'",
      `${otherKey('signing_secret')} WHERE id = 'other-key'`,
      `${otherKey('previous_signing_secret')} WHERE id = 'previous-other-key'`
    ])

    const db = kysely(database)
    t.teardown(() => db.destroy())
    const query = staleSecrets(db, prefix, new Date().toISOString())
    t.same([...new Set((await query.execute()).map((row) => row.id))].sort(), ['other-key', 'overlap-over', 'plaintext', 'previous-other-key'],
      'the Bees with work to do, and only those: another key, plaintext, a previous secret under another key or past its overlap')

    const { sql, parameters } = query.compile()
    const steps = await plan(database, sql, parameters)
    // A scan of the partial index reads only the Bees that keep a previous secret, a handful in any catalog.
    const wholeTable = backend.name === 'sqlite' ? /SCAN published_bees(?! USING INDEX published_bees_with_previous_secret)/ : /Seq Scan/
    t.notMatch(steps, wholeTable, `no step reads the whole table:\n${steps}`)
    t.match(steps, /published_bees_by_secret_key/, 'the key of each secret is found through its index')
    t.match(steps, /published_bees_with_previous_secret/, 'the previous secrets through theirs')
  })
}
