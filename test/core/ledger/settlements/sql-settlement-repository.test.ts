import { test } from 'tap'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import { backends } from '../../../databases.js'
import { SECRETS_KEY } from '../../../helper.js'

const settlement = (n: number) => ({
  paymentKey: `eip155:84532:0xasset:0xpayer:0x${n}`,
  beeId: 'sentiment-analyzer',
  requestId: `req-${n}`,
  network: 'eip155:84532',
  asset: '0xasset',
  // An 18-decimal amount beyond 2^53: kept exactly, as text.
  amount: '12345678901234567890',
  payTo: '0xpayee',
  payer: '0xpayer',
  transaction: `0xtx${n}`
})
/** Sales 1 and 2 of a publisher's Bee, 3 of a built-in one. */
const sale = (n: number) => ({
  payee: n === 3 ? 'operator' : 'pub_acme', micros: 10_001, currency: 'USD', beeId: 'sentiment-analyzer', requestId: `req-${n}`, reference: settlement(n).paymentKey
})

for (const backend of backends) {
  test(`x402 settlements on ${backend.name}: journaled once with their answer and credited to the payee, found by payment, listed newest first`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY, platformFeeBps: 1000 })
    t.teardown(() => store.close())

    for (const n of [1, 2, 3]) {
      const claim = { scope: 'x402', key: `k${n}`, requestHash: 'h', ttlSeconds: 60, leaseSeconds: 60 }
      t.match(await store.idempotency.claim(claim), { state: 'claimed' })
      await store.settlements.record(settlement(n), sale(n), { scope: 'x402', key: `k${n}`, status: 200, body: `{"n":${n}}` })
      t.same(await store.idempotency.claim(claim), { state: 'replay', status: 200, body: `{"n":${n}}` }, 'the answer is stored with the settlement')
    }
    t.match(await store.settlements.byPaymentKey(settlement(2).paymentKey), { ...settlement(2), id: Number })
    t.equal(await store.settlements.byPaymentKey('nope'), null)
    await t.rejects(store.settlements.record(settlement(1), sale(1), { scope: 'x402', key: 'k9', status: 200, body: '{}' }), 'a payment is journaled once')
    // The publisher's share of each of its x402 sales (10,001 less the 1,000 fee), once; the operator's fees and its own sale.
    t.same(await store.earnings.balances('pub_acme'), [{ currency: 'USD', balance: 0.018002, earned: 0.018002, fees: 0.002, paidOut: 0 }])
    t.same(await store.earnings.balances('operator'), [{ currency: 'USD', balance: 0.012001, earned: 0.012001, fees: 0, paidOut: 0 }])
    t.match(await store.earnings.entries('pub_acme', { limit: 1 }), { items: [{ kind: 'x402', amount: 0.009001, fee: 0.001, reference: settlement(2).paymentKey, requestId: 'req-2' }] })

    const first = await store.settlements.list({ limit: 2 })
    t.ok(first.ok)
    if (!first.ok) return
    t.same(first.items.map((item) => item.transaction), ['0xtx3', '0xtx2'])
    const second = await store.settlements.list({ limit: 2, cursor: first.nextCursor ?? undefined })
    t.match(second, { ok: true, items: [{ transaction: '0xtx1' }], nextCursor: null })
    t.same(await store.settlements.list({ limit: 2, cursor: 'garbage!!' }), { ok: false, reason: 'INVALID_CURSOR' })
  })
}
