import t, { test } from 'tap'
import { openStore } from '../src/ledger/open-store.js'
import { hashSecret } from '../src/ledger/secrets.js'
import { issueWallet } from '../src/ledger/wallets.js'
import { backends } from './databases.js'
import { SECRETS_KEY } from './helper.js'

type Asserts = Pick<typeof t, 'ok' | 'equal'>

/** The same suite against every backend: one store contract, two databases. */
for (const backend of backends) {
  test(`ledger store on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { poolSize: 8 })
    t.teardown(() => store.close())
    t.equal(store.dialect, backend.name)

    const fresh = (micros: number, currency = 'USD') => issueWallet(store, { micros, currency, label: null })
    const charge = (token: string, micros: number, extra: { currency?: string, key?: string } = {}) => store.charge({
      tokenHash: hashSecret(token), micros, currency: extra.currency ?? 'USD', beeId: 'b', requestId: `r-${Math.random()}`, idempotencyKey: extra.key ?? null
    })
    const expectBalanced = async (tt: Asserts, walletId: string) => {
      const audit = await store.audit(walletId)
      tt.ok(audit !== null)
      tt.equal(audit?.balanceMicros, audit?.journalMicros, 'balance = deposits − charges + refunds')
    }

    await t.test('migrations are idempotent: opening again finds the schema current', async (tt) => {
      const again = await openStore(database.url)
      await again.ping()
      await again.close()
      tt.pass()
    })

    await t.test('create, read, deposit', async (tt) => {
      const wallet = await fresh(1_500_000)
      tt.match(wallet, { balance: 1.5, currency: 'USD', frozen: false })
      tt.same(await store.getWalletByToken(hashSecret(wallet.token)), await store.getWallet(wallet.id))
      tt.equal((await store.deposit(wallet.id, 250_000, 'req-1'))?.balance, 1.75)
      tt.equal(await store.deposit('wal_missing', 1, null), null)
      tt.equal(await store.getWallet('wal_missing'), null)
      await expectBalanced(tt, wallet.id)
    })

    await t.test('charge: debit, refusals with reasons, refund once', async (tt) => {
      const wallet = await fresh(1000)
      const ok = await charge(wallet.token, 600, { key: 'k1' })
      tt.match(ok, { ok: true, walletId: wallet.id, balanceMicros: 400 })
      tt.match(await charge(wallet.token, 600), { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: 400, currency: 'USD' })
      tt.match(await charge('awt_nobody', 1), { ok: false, reason: 'WALLET_NOT_FOUND' })
      tt.match(await charge(wallet.token, 1, { currency: 'EUR' }), { ok: false, reason: 'CURRENCY_MISMATCH' })
      await store.setFrozen(wallet.id, true)
      tt.match(await charge(wallet.token, 1), { ok: false, reason: 'WALLET_FROZEN' })
      tt.equal((await store.setFrozen(wallet.id, false))?.frozen, false)
      tt.equal(await store.setFrozen('wal_missing', true), null)

      if (!ok.ok) throw new Error('unreachable')
      await store.refund(ok.chargeId, 'req-refund')
      await store.refund(ok.chargeId, 'req-refund-again')
      tt.equal((await store.getWallet(wallet.id))?.balance, 0.001, 'refunded exactly once')
      const { items } = await store.journal(wallet.id, { limit: 10 })
      tt.match(items.map((entry) => [entry.kind, entry.amount, entry.idempotencyKey]), [
        ['refund', 0.0006, 'k1'], ['charge', 0.0006, 'k1'], ['deposit', 0.001, null]
      ])
      await expectBalanced(tt, wallet.id)
    })

    await t.test('concurrent charges never overdraw: exactly N of 3N succeed', async (tt) => {
      const n = 25
      const wallet = await fresh(n * 1000)
      const outcomes = await Promise.all(Array.from({ length: 3 * n }, () => charge(wallet.token, 1000)))
      tt.equal(outcomes.filter((outcome) => outcome.ok).length, n)
      tt.equal((await store.getWallet(wallet.id))?.balance, 0)
      await expectBalanced(tt, wallet.id)
    })

    await t.test('journal and wallet lists page with cursors', async (tt) => {
      const wallet = await fresh(1)
      for (let i = 0; i < 6; i++) await store.deposit(wallet.id, 1, `dep-${i}`)
      const seen: string[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = await store.journal(wallet.id, { limit: 3, cursor })
        seen.push(...page.items.map((entry) => entry.requestId ?? 'opening'))
        cursor = page.nextCursor ?? undefined
        pages++
      } while (cursor !== undefined)
      tt.equal(pages, 3)
      tt.same(seen, ['dep-5', 'dep-4', 'dep-3', 'dep-2', 'dep-1', 'dep-0', 'opening'], 'newest first, nothing twice')
      await tt.rejects(store.journal(wallet.id, { limit: 3, cursor: 'bm90LWEtbnVtYmVy' }), { code: 'INVALID_CURSOR' })

      const ids: string[] = []
      cursor = undefined
      do {
        const page = await store.listWallets({ limit: 2, cursor })
        ids.push(...page.items.map((item) => item.id))
        cursor = page.nextCursor ?? undefined
      } while (cursor !== undefined)
      tt.equal(new Set(ids).size, ids.length, 'no wallet twice')
      tt.ok(ids.includes(wallet.id))
      tt.same(ids, [...ids].sort(), 'in id order')
    })

    await t.test('idempotency keys: claim, replay, mismatch, in flight, takeover, expiry', async (tt) => {
      const claim = (key: string, requestHash: string, ttlSeconds = 3600, leaseSeconds = 60) =>
        store.claimIdempotencyKey({ scope: 'wallet:x', key, requestHash, ttlSeconds, leaseSeconds })
      tt.same(await claim('a', 'h1'), { state: 'claimed' })
      tt.same(await claim('a', 'h1'), { state: 'in-flight' })
      tt.same(await claim('a', 'h2'), { state: 'mismatch' })
      await store.completeIdempotencyKey('wallet:x', 'a', 200, '{"ok":true}')
      tt.same(await claim('a', 'h1'), { state: 'replay', status: 200, body: '{"ok":true}' })
      tt.same(await store.claimIdempotencyKey({ scope: 'wallet:y', key: 'a', requestHash: 'h1', ttlSeconds: 60, leaseSeconds: 60 }),
        { state: 'claimed' }, 'keys are scoped')

      tt.same(await claim('b', 'h1'), { state: 'claimed' })
      await store.releaseIdempotencyKey('wallet:x', 'b')
      tt.same(await claim('b', 'h1'), { state: 'claimed' }, 'a released key can be claimed again')

      tt.same(await claim('c', 'h1', 3600, 0), { state: 'claimed' })
      tt.same(await claim('c', 'h1', 3600, 0), { state: 'claimed' }, 'an abandoned claim (lease over) is taken over')

      tt.same(await claim('d', 'h1', -1), { state: 'claimed' })
      await store.completeIdempotencyKey('wallet:x', 'd', 200, '{}')
      tt.same(await claim('d', 'h2'), { state: 'claimed' }, 'an expired key is free again')
      await store.completeIdempotencyKey('wallet:x', 'e', 200, '{}')
      tt.same(await claim('e', 'h1', -1), { state: 'claimed' })
      tt.ok(await store.purgeExpiredIdempotencyKeys() >= 1, 'expired keys are purged')

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
    const bee = {
      id: 'remote-one',
      ownerId: 'pub_1',
      ownerEmail: 'a@example.com',
      name: 'Remote',
      description: 'd',
      category: 'utility',
      colony: 'community',
      endpoint: 'https://bees.example.com/x',
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object' },
      primaryServices: ['x'],
      pricing: { type: 'pay-per-use' as const, costMicros: 2500, currency: 'USD' },
      status: 'active' as const,
      statusMessage: null,
      sunsetAt: null,
      signingSecret: 'bsk_x',
      previousSigningSecret: null,
      previousSecretExpiresAt: null,
      version: 1,
      createdAt,
      updatedAt: createdAt
    }
    t.equal(await catalog.insertBee(bee), true)
    t.equal(await catalog.insertBee(bee), false, 'an id is taken once')
    t.ok(await catalog.version() > before, 'every change bumps the version')
    t.same(await catalog.publishedBees(), [bee], 'what is stored comes back whole')
    t.same(await catalog.publishedBee('remote-one'), bee)
    t.equal(await catalog.publishedBee('absent'), null)

    await catalog.updateBee({ ...bee, status: 'deprecated', statusMessage: 'old', version: 2 })
    t.match(await catalog.publishedBees(), [{ status: 'deprecated', statusMessage: 'old', version: 2 }])

    await catalog.setBuiltinState({ id: 'text-summarizer', status: 'inactive', statusMessage: 'm', sunsetAt: null, updatedAt: createdAt })
    await catalog.setBuiltinState({ id: 'text-summarizer', status: 'active', statusMessage: null, sunsetAt: null, updatedAt: createdAt })
    t.same(await catalog.builtinStates(), [{ id: 'text-summarizer', status: 'active', statusMessage: null, sunsetAt: null, updatedAt: createdAt }])

    t.equal(await catalog.deleteBee('remote-one'), true)
    t.equal(await catalog.deleteBee('remote-one'), false)
    t.same(await catalog.publishedBees(), [])
  })
}
