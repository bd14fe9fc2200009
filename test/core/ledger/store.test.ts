import Database from 'better-sqlite3'
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely'
import pg from 'pg'
import t, { test } from 'tap'
import { migrationsFor } from '../../../src/core/ledger/migrations.js'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { hashSecret } from '../../../src/core/ledger/secrets.js'
import { type Backend, backends, issuedWallet, ledgerSums, postgresBackend, postgresSkip, runSql, storedBee, twoInstances } from '../../databases.js'

/** Brings a backend's schema up to one migration, as an older release left it. */
async function migrateTo (backend: Backend, name: string) {
  const db = new Kysely<unknown>({
    dialect: backend.name === 'sqlite'
      ? new SqliteDialect({ database: new Database(backend.url) })
      : new PostgresDialect({ pool: new pg.Pool({ connectionString: backend.url, max: 1 }) })
  })
  try {
    // Pinned to this test's schema, as openStore does: Kysely would otherwise take another schema's migration
    // tables (a test running in parallel) for ours.
    const migrationTableSchema = backend.name === 'postgres'
      ? (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db)).rows[0]?.schema
      : undefined
    const { error } = await new Migrator({ db, provider: migrationsFor(backend.name), migrationTableSchema }).migrateTo(name)
    if (error !== undefined) throw error
  } finally {
    await db.destroy()
  }
}
import { SECRETS_KEY } from '../../helper.js'

type Asserts = Pick<typeof t, 'ok' | 'equal'>

/** The same suite against every backend: one store contract, two databases. */
for (const backend of backends) {
  test(`ledger store on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { poolSize: 8 })
    t.teardown(() => store.close())
    t.equal(store.dialect, backend.name)

    const fresh = (micros: number) => issuedWallet(store, micros)
    const hold = (token: string, micros: number, extra: { currency?: string, claim?: { scope: string, key: string }, seconds?: number } = {}) =>
      store.holds.place({
        tokenHash: hashSecret(token),
        micros,
        currency: extra.currency ?? 'USD',
        beeId: 'b',
        requestId: `r-${Math.random()}`,
        claim: extra.claim ?? null,
        expiresInSeconds: extra.seconds ?? 120
      })
    const placed = async (token: string, micros: number, extra: Parameters<typeof hold>[2] = {}) => {
      const outcome = await hold(token, micros, extra)
      if (!outcome.ok) throw new Error(`hold refused: ${outcome.reason}`)
      return outcome.holdId
    }
    const expectBalanced = async (tt: Asserts, walletId: string) => {
      const audit = await store.journal.audit(walletId)
      tt.ok(audit !== null)
      tt.equal(audit?.balanceMicros, audit?.journalMicros, 'balance = deposits − holds + voids')
    }
    const entries = async (walletId: string) => await store.journal.recent(walletId, 100)

    await t.test('migrations are idempotent: opening again finds the schema current', async (tt) => {
      const again = await openStore(database.url)
      await again.ping()
      await again.close()
      tt.pass()
    })

    await t.test('create, read, deposit', async (tt) => {
      const wallet = await fresh(1_500_000)
      tt.match(wallet, { balance: 1.5, currency: 'USD', frozen: false })
      tt.same(await store.wallets.getByToken(hashSecret(wallet.token)), await store.wallets.get(wallet.id))
      tt.equal(await store.wallets.idByToken(hashSecret(wallet.token)), wallet.id)
      tt.equal(await store.wallets.idByToken(hashSecret('awt_unknown')), null)
      tt.match(await store.wallets.deposit(wallet.id, 250_000, 'req-1'), { ok: true, wallet: { balance: 1.75 } })
      tt.same(await store.wallets.deposit('wal_missing', 1, null), { ok: false, reason: 'WALLET_NOT_FOUND' })
      tt.equal(await store.wallets.get('wal_missing'), null)
      await expectBalanced(tt, wallet.id)
    })

    await t.test('hold: debit at once, refusals with reasons', async (tt) => {
      const wallet = await fresh(1000)
      const ok = await hold(wallet.token, 600)
      tt.match(ok, { ok: true, walletId: wallet.id, balanceMicros: 400 })
      tt.match(await store.wallets.get(wallet.id), { balance: 0.0004, held: 0.0006 }, 'the hold is shown as held')
      tt.match(await hold(wallet.token, 600), { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: 400, currency: 'USD' })
      tt.match(await hold('awt_nobody', 1), { ok: false, reason: 'WALLET_NOT_FOUND' })
      tt.match(await hold(wallet.token, 1, { currency: 'EUR' }), { ok: false, reason: 'CURRENCY_MISMATCH' })
      await store.wallets.setFrozen(wallet.id, true)
      tt.match(await hold(wallet.token, 1), { ok: false, reason: 'WALLET_FROZEN' })
      tt.equal((await store.wallets.setFrozen(wallet.id, false))?.frozen, false)
      tt.equal(await store.wallets.setFrozen('wal_missing', true), null)
      await expectBalanced(tt, wallet.id)
    })

    await t.test('hold then capture: a sale with no second debit, settled once', async (tt) => {
      const wallet = await fresh(1000)
      const id = await placed(wallet.token, 600)
      tt.equal(await store.holds.capture(id, 'req-capture', null), true)
      tt.equal(await store.holds.capture(id, 'req-again', null), false, 'a hold is captured once')
      tt.equal(await store.holds.void(id, 'req-void'), false, 'a captured hold cannot be voided')
      tt.match(await store.wallets.get(wallet.id), { balance: 0.0004, held: 0 })
      tt.match((await entries(wallet.id)).map((entry) => [entry.kind, entry.amount, entry.holdId]), [
        ['capture', 0.0006, id], ['hold', 0.0006, null], ['deposit', 0.001, null]
      ])
      await expectBalanced(tt, wallet.id)
    })

    await t.test('hold then void: credited back once, and then it cannot be captured', async (tt) => {
      const wallet = await fresh(1000)
      const id = await placed(wallet.token, 600)
      tt.equal(await store.holds.void(id, 'req-void'), true)
      tt.equal(await store.holds.void(id, 'req-void-again'), false, 'voided once')
      tt.equal(await store.holds.capture(id, 'req-capture', null), false, 'a voided hold cannot be captured')
      tt.match(await store.wallets.get(wallet.id), { balance: 0.001, held: 0 })
      tt.match((await entries(wallet.id)).map((entry) => [entry.kind, entry.amount, entry.holdId, entry.requestId]), [
        ['void', 0.0006, id, 'req-void'], ['hold', 0.0006, null, String], ['deposit', 0.001, null, null]
      ])
      await expectBalanced(tt, wallet.id)
    })

    await t.test('the sweeper voids expired pending holds only', async (tt) => {
      const wallet = await fresh(3000)
      const expired = await placed(wallet.token, 1000, { seconds: -1 })
      const live = await placed(wallet.token, 1000)
      const capturedLate = await placed(wallet.token, 1000, { seconds: -1 })
      await store.holds.capture(capturedLate, 'req', null)
      tt.ok(await store.holds.voidExpired(1000) >= 1)
      tt.equal(await store.holds.voidExpired(1000), 0, 'nothing left to void')
      const kinds = (await entries(wallet.id)).filter((entry) => entry.holdId !== null).map((entry) => [entry.kind, entry.holdId])
      tt.same(kinds.sort(), [['capture', capturedLate], ['void', expired]].sort(), 'the live and the captured hold are untouched')
      tt.match(await store.wallets.get(wallet.id), { balance: 0.001, held: 0.001 })
      tt.equal(await store.holds.capture(live, 'req', null), true)
      await expectBalanced(tt, wallet.id)
    })

    await t.test('a hold on a claim: linked, reused by the takeover, captured with the stored answer', async (tt) => {
      const wallet = await fresh(1000)
      const scope = 'wallet:holds'
      const claim = (key: string, leaseSeconds: number) =>
        store.idempotency.claim({ scope, key, requestHash: 'h1', ttlSeconds: 3600, leaseSeconds })
      tt.same(await claim('k1', 60), { state: 'claimed', holdId: null })
      const id = await placed(wallet.token, 600, { claim: { scope, key: 'k1' } })
      tt.same(await claim('k1', 0), { state: 'claimed', holdId: id }, 'the takeover learns the claim\'s hold')
      tt.same(await store.idempotency.claim({ scope, key: 'k1', requestHash: 'h2', ttlSeconds: 3600, leaseSeconds: 0 }),
        { state: 'mismatch' }, 'another request does not take the claim (and its hold) over')
      tt.match(await store.holds.renew(id, 120), { walletId: wallet.id, micros: 600, balanceMicros: 400 })
      tt.equal(await store.holds.capture(id, 'req', { scope, key: 'k1', status: 200, body: '{"sold":1}' }), true)
      tt.same(await claim('k1', 0), { state: 'replay', status: 200, body: '{"sold":1}' }, 'captured and stored together')
      tt.equal(await store.holds.renew(id, 120), null, 'a settled hold is not renewed')
      tt.equal((await entries(wallet.id)).filter((entry) => entry.kind === 'hold').length, 1, 'one hold for the key')

      tt.same(await claim('k2', 60), { state: 'claimed', holdId: null })
      const late = await placed(wallet.token, 400, { claim: { scope, key: 'k2' } })
      await store.holds.void(late, null)
      tt.equal(await store.holds.capture(late, 'req', { scope, key: 'k2', status: 200, body: '{"free":1}' }), false)
      tt.same(await claim('k2', 60), { state: 'in-flight' }, 'a refused capture stores no answer')
      await expectBalanced(tt, wallet.id)
    })

    await t.test('concurrent holds never overdraw: exactly N of 3N succeed', async (tt) => {
      const n = 25
      const wallet = await fresh(n * 1000)
      const outcomes = await Promise.all(Array.from({ length: 3 * n }, () => hold(wallet.token, 1000)))
      tt.equal(outcomes.filter((outcome) => outcome.ok).length, n)
      tt.equal((await store.wallets.get(wallet.id))?.balance, 0)
      await expectBalanced(tt, wallet.id)
    })

    await t.test('journal and wallet lists page with cursors', async (tt) => {
      const wallet = await fresh(1)
      for (let i = 0; i < 6; i++) await store.wallets.deposit(wallet.id, 1, `dep-${i}`)
      const seen: string[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = await store.journal.list(wallet.id, { limit: 3, cursor })
        if (!page.ok) throw new Error('the journal refused its own cursor')
        seen.push(...page.items.map((entry) => entry.requestId ?? 'opening'))
        cursor = page.nextCursor ?? undefined
        pages++
      } while (cursor !== undefined)
      tt.equal(pages, 3)
      tt.same(seen, ['dep-5', 'dep-4', 'dep-3', 'dep-2', 'dep-1', 'dep-0', 'opening'], 'newest first, nothing twice')
      const invalid = { ok: false, reason: 'INVALID_CURSOR' }
      tt.same(await store.journal.list(wallet.id, { limit: 3, cursor: 'bm90LWEtbnVtYmVy' }), invalid, 'not an entry id')
      tt.same(await store.journal.list(wallet.id, { limit: 3, cursor: 'OTAwNzE5OTI1NDc0MDk5Mw' }), invalid, 'beyond a safe integer')
      tt.same(await store.wallets.list({ limit: 2, cursor: 'garbage!!' }), invalid, 'not a cursor at all')
      tt.same(await store.wallets.list({ limit: 2, cursor: 'MQ' }), invalid, 'not a wallet id')

      const ids: string[] = []
      cursor = undefined
      do {
        const page = await store.wallets.list({ limit: 2, cursor })
        if (!page.ok) throw new Error('the wallet list refused its own cursor')
        ids.push(...page.items.map((item) => item.id))
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      tt.equal(new Set(ids).size, ids.length, 'no wallet twice')
      tt.ok(ids.includes(wallet.id))
      tt.same(ids, [...ids].sort(), 'in id order')
    })

    await t.test('idempotency keys: claim, replay, mismatch, in flight, takeover, expiry', async (tt) => {
      const claim = (key: string, requestHash: string, ttlSeconds = 3600, leaseSeconds = 60) =>
        store.idempotency.claim({ scope: 'wallet:x', key, requestHash, ttlSeconds, leaseSeconds })
      const claimed = { state: 'claimed', holdId: null }
      const complete = (key: string, body: string) => store.idempotency.complete({ scope: 'wallet:x', key, status: 200, body })
      tt.same(await claim('a', 'h1'), claimed)
      tt.same(await claim('a', 'h1'), { state: 'in-flight' })
      tt.same(await claim('a', 'h2'), { state: 'mismatch' })
      await complete('a', '{"ok":true}')
      tt.same(await claim('a', 'h1'), { state: 'replay', status: 200, body: '{"ok":true}' })
      tt.same(await store.idempotency.claim({ scope: 'wallet:y', key: 'a', requestHash: 'h1', ttlSeconds: 60, leaseSeconds: 60 }),
        claimed, 'keys are scoped')

      tt.same(await claim('b', 'h1'), claimed)
      await store.idempotency.release('wallet:x', 'b')
      tt.same(await claim('b', 'h1'), claimed, 'a released key can be claimed again')

      tt.same(await claim('c', 'h1', 3600, 0), claimed)
      tt.same(await claim('c', 'h1', 3600, 0), claimed, 'an abandoned claim (lease over) is taken over')

      tt.same(await claim('d', 'h1', -1), claimed)
      await complete('d', '{}')
      tt.same(await claim('d', 'h2'), claimed, 'an expired key is free again')
      await complete('e', '{}')
      tt.same(await claim('e', 'h1', -1), claimed)
      tt.ok(await store.idempotency.purgeExpired() >= 1, 'expired keys are purged')

      const racing = await Promise.all(Array.from({ length: 10 }, () => claim('f', 'h1')))
      tt.equal(racing.filter((outcome) => outcome.state === 'claimed').length, 1, 'one of ten concurrent claims wins')
    })
  })
}

for (const backend of backends) {
  test(`catalog store on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())
    const { catalog } = store
    const createdAt = new Date().toISOString()

    const publisher = await catalog.createPublisher({ id: 'pub_1', email: 'a@example.com', name: 'A', createdAt, keyHash: 'h1' })
    t.same(await catalog.publisherByKey('h1'), publisher)
    t.equal(await catalog.publisherByKey('nope'), null)

    const before = await catalog.version()
    const bee = storedBee('remote-one', 'pub_1', createdAt, {
      name: 'Remote',
      description: 'd',
      category: 'utility',
      primaryServices: ['x'],
      pricing: { type: 'pay-per-use' as const, costMicros: 2500, currency: 'USD' },
      callsPerMinute: 90,
      previousSigningSecret: null,
      previousSecretExpiresAt: null
    })
    t.equal(await catalog.insertBee(bee), true)
    t.equal(await catalog.insertBee(bee), false, 'an id is taken once')
    t.ok(await catalog.version() > before, 'every change bumps the version')
    const loaded = await catalog.changesSince(before)
    t.same(loaded.changed, ['remote-one'], 'the new Bee is a change')
    const { secrets, ...loadedBee } = await catalog.catalogBee('remote-one') ?? t.fail('the new Bee loads') as never
    t.same({ ...loadedBee, ...secrets() }, bee, 'what is stored comes back whole, its secrets opened on demand')
    t.equal(await catalog.catalogBee('absent'), null)
    t.equal(loaded.version, await catalog.version())
    t.same((await catalog.changesSince(loaded.version)).changed, [], 'only what changed after the version seen')
    t.same(await catalog.publishedBee('remote-one'), bee)
    t.equal(await catalog.publishedBee('absent'), null)

    const updatedAt = await catalog.updateBee({ ...bee, status: 'deprecated', statusMessage: 'old', version: 2 })
    t.same((await catalog.changesSince(loaded.version)).changed, ['remote-one'])
    t.equal(updatedAt, (await catalog.changesSince(loaded.version)).version, 'an update tells the version it committed as')
    t.equal(await catalog.updateBee({ ...bee, id: 'absent' }), null, 'and null when there is no such Bee')
    t.match(await catalog.catalogBee('remote-one'), { status: 'deprecated', statusMessage: 'old', version: 2 })
    t.same(await catalog.activeBees({}, 10), [], 'a deprecated Bee is not listed')
    t.ok(await catalog.rotateSigningSecret('remote-one', 'bsk_rotated', null))
    await catalog.updateBee({ ...bee, status: 'deprecated', statusMessage: 'older', version: 4 })
    t.match(await catalog.publishedBee('remote-one'), { statusMessage: 'older', signingSecret: 'bsk_rotated' },
      'a change made with the Bee as read before a rotation keeps the rotated secret')

    await catalog.setBuiltinState({ id: 'text-summarizer', status: 'inactive', statusMessage: 'm', sunsetAt: null, updatedAt: createdAt })
    await catalog.setBuiltinState({ id: 'text-summarizer', status: 'active', statusMessage: null, sunsetAt: null, updatedAt: createdAt })
    t.same((await catalog.changesSince(loaded.version)).states, [{ id: 'text-summarizer', status: 'active', statusMessage: null, sunsetAt: null, updatedAt: createdAt }])
    t.same(await catalog.builtinStates(), [{ id: 'text-summarizer', status: 'active', statusMessage: null, sunsetAt: null, updatedAt: createdAt }], 'the built-ins\' states alone')

    t.equal(await catalog.deleteBee('remote-one'), true)
    t.equal(await catalog.deleteBee('remote-one'), false)
    const afterRemoval = await catalog.changesSince(loaded.version)
    t.same(afterRemoval.changed, [])
    t.same(afterRemoval.removed, ['remote-one'], 'a removal travels as a tombstone')
  })
}

for (const backend of backends) {
  test(`sweepers at once void each expired hold exactly once (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    // Two instances share a PostgreSQL database; a SQLite file has one instance, whose sweeps may still overlap.
    const [first, second] = await twoInstances(t, database, {})
    const n = 60
    const wallets = await Promise.all([1, 2, 3].map(() => issuedWallet(first, n * 1000)))
    const holds = await Promise.all(Array.from({ length: n }, (_, i) => {
      const wallet = wallets[i % wallets.length] as { token: string }
      return first.holds.place({
        tokenHash: hashSecret(wallet.token), micros: 1000, currency: 'USD', beeId: 'b', requestId: `r${i}`, claim: null, expiresInSeconds: -1
      })
    }))
    t.ok(holds.every((outcome) => outcome.ok))
    // Small batches, many rounds, from two stores (two instances) at once.
    const sweeper = async (store: typeof first) => {
      let total = 0
      for (let round = 0; round < 20; round++) total += await store.holds.voidExpired(7)
      return total
    }
    const [a, b] = await Promise.all([sweeper(first), sweeper(second)])
    t.equal(a + b, n, `${a} + ${b} voids: every hold voided, none twice`)
    for (const wallet of wallets) {
      const items = await first.journal.recent(wallet.id, 500)
      const voids = items.filter((entry) => entry.kind === 'void')
      t.equal(new Set(voids.map((entry) => entry.holdId)).size, voids.length, 'one void row per hold')
      t.equal(voids.length, items.filter((entry) => entry.kind === 'hold').length)
      t.match(await first.wallets.get(wallet.id), { balance: n * 0.001, held: 0 })
      const audit = await first.journal.audit(wallet.id)
      t.equal(audit?.balanceMicros, audit?.journalMicros)
    }
  })

  test(`a ledger from before holds migrates: legacy charges and refunds stay readable and audited (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    // The schema as 0002 left it, with a wallet, its deposit, two charges and a refund written the old way.
    await migrateTo(database, '0002_publishing')
    const token = 'awt_legacy'
    const wallet = { id: 'wal_legacy', token }
    await runSql(database, [
      `INSERT INTO wallets (id, token_hash, balance, currency, label, frozen, created_at) VALUES ('${wallet.id}', '${hashSecret(token)}', 3000, 'USD', NULL, 0, '2026-01-01T00:00:00.000Z')`,
      `INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, refund_of, created_at) VALUES ('${wallet.id}', 'deposit', 5000, NULL, NULL, NULL, NULL, '2026-01-01T00:00:00.000Z')`,
      `INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, refund_of, created_at) VALUES ('${wallet.id}', 'charge', 1000, 'b', 'r1', 'k1', NULL, '2026-01-01T00:00:00.000Z')`,
      `INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, refund_of, created_at) VALUES ('${wallet.id}', 'charge', 2000, 'b', 'r2', NULL, NULL, '2026-01-01T00:00:01.000Z')`,
      `INSERT INTO journal (wallet_id, kind, amount, bee_id, request_id, idempotency_key, refund_of, created_at) VALUES ('${wallet.id}', 'refund', 1000, 'b', 'r3', 'k1', (SELECT max(id) - 1 FROM journal), '2026-01-01T00:00:02.000Z')`
    ])

    const store = await openStore(database.url)
    t.teardown(() => store.close())
    const items = await store.journal.recent(wallet.id, 10)
    t.match(items.map((entry) => [entry.kind, entry.amount, entry.holdId]), [
      ['refund', 0.001, null], ['charge', 0.002, null], ['charge', 0.001, null], ['deposit', 0.005, null]
    ], 'old entries keep their ids, kinds and order')
    t.same(await store.journal.audit(wallet.id), { balanceMicros: 3000, journalMicros: 3000 }, 'deposits − charges + refunds')
    const held = await store.holds.place({
      tokenHash: hashSecret(wallet.token), micros: 500, currency: 'USD', beeId: 'b', requestId: 'r4', claim: null, expiresInSeconds: 60
    })
    if (!held.ok) throw new Error('hold refused')
    t.ok(held.holdId > (items[0]?.id ?? Infinity), 'new entries number after the old ones')
    await store.holds.capture(held.holdId, 'r4', null)
    t.same(await store.journal.audit(wallet.id), { balanceMicros: 2500, journalMicros: 2500 })
    // What was charged before earnings existed opens the operator's account: the sum invariant holds on the upgraded ledger.
    t.match(await store.earnings.entries('operator', { limit: 10 }), { items: [{ kind: 'sale', amount: 0.0005 }, { kind: 'opening', amount: 0.002 }] })
    const sums = await ledgerSums(database)
    t.equal(sums.held, sums.owed, 'wallets + pending + earnings = deposits')
  })
}

for (const backend of backends) {
  test(`a publisher's Bees are counted from the migration on, whoever writes them, and the quota reads the count (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const at = '2026-01-01T00:00:00.000Z'
    const row = (id: string, owner: string) => `INSERT INTO published_bees (id, owner_id, owner_email, name, description, category, colony, endpoint,
      input_schema, output_schema, primary_services, pricing_type, cost_micros, currency, status, signing_secret, version, created_at, updated_at)
      VALUES ('${id}', '${owner}', 'a@example.com', 'N', 'D', 'data', 'community', 'https://bees.example.com/x', '{"type":"object"}',
      '{"type":"object"}', '[]', 'free', 0, 'USD', 'active', 'bsk_x', 1, '${at}', '${at}')`
    // Two Bees stored before the counts existed.
    await migrateTo(database, '0016_catalog_listing')
    await runSql(database, [
      `INSERT INTO publishers (id, email, name, key_hash, created_at) VALUES ('pub_a', 'a@example.com', 'A', 'ha', '${at}'), ('pub_b', 'b@example.com', 'B', 'hb', '${at}')`,
      row('old-one', 'pub_a'), row('old-two', 'pub_a')
    ])
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())
    const { catalog } = store
    const counts = async () => Object.fromEntries((await runSql(database, ['SELECT id, bee_count FROM publishers ORDER BY id']) as Array<{ id: string, bee_count: number }>)
      .map((publisher) => [publisher.id, Number(publisher.bee_count)]))
    t.same(await counts(), { pub_a: 2, pub_b: 0 }, 'counted by the migration')

    const bee = (id: string, ownerId = 'pub_a') => storedBee(id, ownerId, at, {})
    const inserted = await catalog.insertBeeWithinQuota(bee('new-one'), 3)
    t.match(inserted, { outcome: 'inserted' })
    t.equal(inserted.outcome === 'inserted' && inserted.version, await catalog.version(), 'an insert tells the version it committed as')
    t.same(await catalog.insertBeeWithinQuota(bee('new-two'), 3), { outcome: 'over-quota' }, 'a fourth Bee is over a quota of 3')
    const version = await catalog.version()
    t.same(await catalog.insertBeeWithinQuota({ ...bee('old-one', 'pub_b'), name: 'Usurper' }, 3), { outcome: 'taken' }, 'a taken id, by another owner')
    t.equal(await catalog.version(), version, 'moves no version')
    t.same(await counts(), { pub_a: 3, pub_b: 0 }, 'counts nothing')
    t.same(await catalog.search('Usurper', 'all', 10), [], 'and indexes nothing')
    t.match(await catalog.catalogBee('old-one'), { ownerId: 'pub_a', name: 'N' }, 'the Bee that had the id keeps it')

    t.equal(await catalog.deleteBee('old-two'), true)
    t.same(await counts(), { pub_a: 2, pub_b: 0 }, 'a removal frees a place')
    t.match(await catalog.insertBeeWithinQuota(bee('new-two'), 3), { outcome: 'inserted' }, 'which a publish takes')
    await runSql(database, [row('by-hand', 'pub_b'), "UPDATE published_bees SET owner_id = 'pub_b' WHERE id = 'old-one'"])
    t.same(await counts(), { pub_a: 2, pub_b: 2 }, 'rows written by hand count, and a change of owner moves a Bee between counts')
  })
}

test('a schema of its own migrates while another Apiary schema on the same PostgreSQL database exists', { skip: postgresSkip }, async (t) => {
  const [first, second] = [await postgresBackend(), await postgresBackend()]
  t.teardown(async () => { await first.drop(); await second.drop() })
  const migrated = await openStore(first.url)
  t.teardown(() => migrated.close())
  const store = await openStore(second.url)
  t.teardown(() => store.close())
  await store.ping()
  t.pass('Kysely\'s migration tables of the first schema did not stand in for the second\'s')
})
