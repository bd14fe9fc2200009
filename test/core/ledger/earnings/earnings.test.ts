import { setImmediate as nextTurn } from 'node:timers/promises'
import { test } from 'tap'
import { feeOf, OPERATOR_ACCOUNT } from '../../../../src/core/ledger/earnings/split.js'
import type { Ledger } from '../../../../src/core/ledger/ledger.js'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import { hashSecret } from '../../../../src/core/ledger/secrets.js'
import { backends, issuedWallet, ledgerSums, twoInstances } from '../../../databases.js'
import { SECRETS_KEY } from '../../../helper.js'

const PUBLISHER = 'pub_acme'

async function withPublisher (store: Ledger, id = PUBLISHER) {
  await store.catalog.createPublisher({ id, email: 'acme@example.com', name: 'Acme', createdAt: new Date().toISOString(), keyHash: `h-${id}` })
}

/** Places a hold for a sale to `payee` (undefined: a built-in Bee, the operator's). */
async function held (store: Ledger, token: string, micros: number, payee?: string, expiresInSeconds = 120) {
  const outcome = await store.holds.place({
    tokenHash: hashSecret(token), micros, currency: 'USD', beeId: payee === undefined ? 'builtin' : 'remote', requestId: `r-${Math.random()}`, claim: null, expiresInSeconds, payee
  })
  if (!outcome.ok) throw new Error(`hold refused: ${outcome.reason}`)
  return outcome.holdId
}

test('the fee is floor(price × bps / 10000), exact for every price a 64-bit column holds', async (t) => {
  const prices = [0, 1, 9_999, 10_000, 10_001, 1_000_001, 123_456_789, 9_000_000_000_000_000, Number.MAX_SAFE_INTEGER]
  for (const bps of [0, 1, 250, 3333, 9_999, 10_000]) {
    for (const micros of prices) {
      t.equal(BigInt(feeOf(micros, bps)), BigInt(micros) * BigInt(bps) / 10_000n, `${micros} at ${bps} bps`)
    }
  }
})

for (const backend of backends) {
  test(`captures credit the payee and the operator; voids and second captures move nothing (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY, platformFeeBps: 250 })
    t.teardown(() => store.close())
    await withPublisher(store)
    const wallet = await issuedWallet(store, 10_000_000)

    const sale = await held(store, wallet.token, 1_000_001, PUBLISHER)
    t.equal(await store.holds.capture(sale, 'r-sale', null), true)
    t.equal(await store.holds.capture(sale, 'r-again', null), false, 'a hold is captured once')
    t.equal(await store.holds.void(sale, null), false)
    const builtin = await held(store, wallet.token, 1000)
    t.equal(await store.holds.capture(builtin, 'r-builtin', null), true)
    const failed = await held(store, wallet.token, 5000, PUBLISHER)
    t.equal(await store.holds.void(failed, 'r-failed'), true)
    t.equal(await store.holds.capture(failed, 'r-late', null), false, 'a voided hold earns nothing')

    // 1,000,001 × 2.5 % = 25,000.025: the fee is 25,000 micro-units, the publisher earns the other 975,001.
    t.same(await store.earnings.balances(PUBLISHER), [{ currency: 'USD', balance: 0.975001, earned: 0.975001, fees: 0.025, paidOut: 0 }])
    t.same(await store.earnings.balances(OPERATOR_ACCOUNT), [{ currency: 'USD', balance: 0.026, earned: 0.026, fees: 0, paidOut: 0 }],
      'the fee, and the built-in Bee\'s whole price')
    const first = await store.earnings.entries(OPERATOR_ACCOUNT, { limit: 1 })
    if (!first.ok) throw new Error('page refused')
    t.match(first.items, [{ kind: 'sale', amount: 0.001, fee: 0, beeId: 'builtin', holdId: builtin, requestId: 'r-builtin' }], 'newest first')
    const second = await store.earnings.entries(OPERATOR_ACCOUNT, { limit: 1, cursor: first.nextCursor ?? '' })
    if (!second.ok) throw new Error('page refused')
    t.match(second.items, [{ kind: 'fee', amount: 0.025, beeId: 'remote', holdId: sale, requestId: 'r-sale' }])
    t.equal(second.nextCursor, null)
    t.same(await store.earnings.entries(OPERATOR_ACCOUNT, { limit: 1, cursor: 'garbage!!' }), { ok: false, reason: 'INVALID_CURSOR' })
    t.match((await store.earnings.entries(PUBLISHER, { limit: 10 })), { ok: true, items: [{ kind: 'sale', amount: 0.975001, fee: 0.025, currency: 'USD' }] })

    t.match(await store.earnings.payout({ account: PUBLISHER, micros: 975_002, currency: 'USD', reference: null, requestId: null }),
      { ok: false, reason: 'PAYOUT_EXCEEDS_BALANCE', balance: { balance: 0.975001 } })
    t.match(await store.earnings.payout({ account: PUBLISHER, micros: 1, currency: 'EUR', reference: null, requestId: null }),
      { ok: false, reason: 'PAYOUT_EXCEEDS_BALANCE', balance: { currency: 'EUR', balance: 0 } }, 'nothing was earned in EUR')
    t.same(await store.earnings.payout({ account: 'pub_nobody', micros: 1, currency: 'USD', reference: null, requestId: null }), { ok: false, reason: 'ACCOUNT_NOT_FOUND' })
    t.match(await store.earnings.payout({ account: PUBLISHER, micros: 500_000, currency: 'USD', reference: 'SEPA-1', requestId: 'r-pay' }), {
      ok: true,
      payout: { kind: 'payout', amount: 0.5, reference: 'SEPA-1', requestId: 'r-pay' },
      balance: { balance: 0.475001, earned: 0.975001, fees: 0.025, paidOut: 0.5 }
    })
    t.same(await store.earnings.balances(PUBLISHER), [{ currency: 'USD', balance: 0.475001, earned: 0.975001, fees: 0.025, paidOut: 0.5 }])
    const sums = await ledgerSums(database)
    t.equal(sums.held, sums.owed, 'wallets + pending + earnings = deposits − payouts')
  })

  test(`a hold keeps the payee it was placed with (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())
    await withPublisher(store)
    const wallet = await issuedWallet(store, 10_000)
    const hold = await held(store, wallet.token, 2000, PUBLISHER)
    // Whatever happens to the Bee meanwhile (unpublished, republished by someone else), the capture pays this payee.
    t.equal(await store.holds.capture(hold, 'r', null), true)
    t.same(await store.earnings.balances(PUBLISHER), [{ currency: 'USD', balance: 0.002, earned: 0.002, fees: 0, paidOut: 0 }], 'no fee by default')
    t.same(await store.earnings.balances(OPERATOR_ACCOUNT), [])
  })

  test(`concurrent payouts, from two instances, never take more than the balance (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const [first, second] = await twoInstances(t, database, { secretsKey: SECRETS_KEY, poolSize: 8 })
    await withPublisher(first)
    const wallet = await issuedWallet(first, 10_000)
    for (let i = 0; i < 10; i++) await first.holds.capture(await held(first, wallet.token, 1000, PUBLISHER), `r${i}`, null)
    const outcomes = await Promise.all(Array.from({ length: 25 }, (_, i) =>
      (i % 2 === 0 ? first : second).earnings.payout({ account: PUBLISHER, micros: 1000, currency: 'USD', reference: `p${i}`, requestId: null })))
    t.equal(outcomes.filter((outcome) => outcome.ok).length, 10, 'exactly the balance, in payouts of 1000')
    t.ok(outcomes.filter((outcome) => !outcome.ok).every((outcome) => !outcome.ok && outcome.reason === 'PAYOUT_EXCEEDS_BALANCE'))
    t.same(await first.earnings.balances(PUBLISHER), [{ currency: 'USD', balance: 0, earned: 0.01, fees: 0, paidOut: 0.01 }])
  })

  test(`the sum invariant holds at every instant under concurrent captures, voids, sweeps and payouts (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const [first, second] = await twoInstances(t, database, { secretsKey: SECRETS_KEY, poolSize: 8, platformFeeBps: 1234 })
    const publishers = ['pub_a', 'pub_b']
    for (const id of publishers) await withPublisher(first, id)
    const wallets = await Promise.all([1, 2, 3, 4].map(() => issuedWallet(first, 5_000_000)))
    const payees = [...publishers, undefined]

    const loaded = new AbortController()
    const samples: Array<{ held: number, owed: number }> = []
    // Each loop gives the event loop a turn: SQLite answers synchronously, and the group commit waits for one.
    const sampler = (async () => {
      while (!loaded.signal.aborted) {
        samples.push(await ledgerSums(database))
        await nextTurn()
      }
    })()
    const sweeper = (async () => {
      while (!loaded.signal.aborted) {
        await second.holds.voidExpired(5)
        await nextTurn()
      }
    })()
    // Each call: a hold (some already expired, for the sweeper), then a capture (the Bee answered) or a void (it failed).
    const call = async (i: number) => {
      const store = i % 2 === 0 ? first : second
      const wallet = wallets[i % wallets.length] as { token: string }
      const payee = payees[i % payees.length]
      const outcome = await store.holds.place({
        tokenHash: hashSecret(wallet.token), micros: 1000 + i * 37, currency: 'USD', beeId: 'b', requestId: `r${i}`, claim: null, expiresInSeconds: i % 7 === 0 ? -1 : 120, payee
      })
      if (!outcome.ok) return
      if (i % 5 === 0) await store.holds.void(outcome.holdId, `r${i}`)
      else await store.holds.capture(outcome.holdId, `r${i}`, null)
      if (i % 10 === 3 && payee !== undefined) await store.earnings.payout({ account: payee, micros: 500, currency: 'USD', reference: null, requestId: null })
    }
    // 16 callers at once, 25 calls each, so the load spans many batches (SQLite) and round trips (PostgreSQL).
    await Promise.all(Array.from({ length: 16 }, async (_, lane) => {
      for (let j = 0; j < 25; j++) await call(lane * 25 + j)
    }))
    loaded.abort()
    await sampler
    await sweeper
    t.ok(samples.length > 3, `${samples.length} samples taken during the load`)
    t.ok(samples.every((sample) => sample.held === sample.owed), 'wallets + pending + earnings = deposits − payouts in every sample')
    const after = await ledgerSums(database)
    t.equal(after.held, after.owed, 'and after it')
    // Every captured micro-unit was credited exactly once, to its payee or as a fee.
    const earned = async (account: string) => (await first.earnings.balances(account))[0]?.earned ?? 0
    const captured = (await Promise.all(wallets.map((wallet) => first.journal.recent(wallet.id, 1000))))
      .flat().filter((entry) => entry.kind === 'capture').reduce((sum, entry) => sum + Math.round(entry.amount * 1e6), 0)
    const credited = (await Promise.all([...publishers, OPERATOR_ACCOUNT].map(earned))).reduce((sum, value) => sum + Math.round(value * 1e6), 0)
    t.equal(credited, captured)
  })
}
