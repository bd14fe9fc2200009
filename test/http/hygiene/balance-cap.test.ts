import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { issueWallet } from '../../../src/core/ledger/wallets/issue-wallet.js'
import { MAX_AMOUNT, MAX_BALANCE } from '../../../src/core/schemas.js'
import { backends, issuedWallet } from '../../databases.js'
import { adminHeaders, build, createWallet } from '../../helper.js'

const MAX_BALANCE_MICROS = MAX_BALANCE * 1_000_000

test('the cap keeps every balance a safe integer of micro-units', async (t) => {
  t.ok(Number.isSafeInteger(MAX_BALANCE_MICROS))
  // A published Bee charges at most 1,000 a call: room for thousands of refunds in flight above the cap.
  t.ok(Number.MAX_SAFE_INTEGER - MAX_BALANCE_MICROS > 1000 * 1000 * 1_000_000, 'with room for refunds in flight')
})

for (const backend of backends) {
  test(`balances are capped on ${backend.name}, and always agree with the journal`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const app = await build(t, { env: { DATABASE_URL: database.url } })
    const deposit = (id: string, amount: number) =>
      app.inject({ method: 'POST', url: `/api/wallets/${id}/deposits`, headers: adminHeaders, payload: { amount } })
    const audit = async (id: string) => await app.ledger.journal.audit(id)

    await t.test('deposits up to the cap succeed; the one that would cross it is a 400 and changes nothing', async (tt) => {
      const wallet = await createWallet(app, 1)
      const full = MAX_BALANCE / MAX_AMOUNT
      for (let i = 0; i < full - 1; i++) tt.equal((await deposit(wallet.id, MAX_AMOUNT)).statusCode, 200)
      const over = await deposit(wallet.id, MAX_AMOUNT)
      tt.equal(over.statusCode, 400)
      tt.match(over.json(), { error: 'Bad Request', code: 'BALANCE_LIMIT_EXCEEDED', message: /9,000,000,000/ })
      const topUp = await deposit(wallet.id, MAX_AMOUNT - 1)
      tt.equal(topUp.statusCode, 200, 'exactly up to the cap is fine')
      tt.equal(topUp.json().balance, MAX_BALANCE)
      tt.equal((await deposit(wallet.id, 0.000001)).json().code, 'BALANCE_LIMIT_EXCEEDED', 'not a micro-unit more')
      const { balanceMicros, journalMicros } = await audit(wallet.id) ?? { balanceMicros: -1, journalMicros: -2 }
      tt.equal(balanceMicros, MAX_BALANCE_MICROS)
      tt.equal(journalMicros, balanceMicros, 'the refused deposits were not journaled')
      const journal = await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=200`, headers: adminHeaders })
      tt.equal(journal.json().entries.length, full + 1, 'the opening deposit and every accepted one')
    })

    await t.test('concurrent deposits cannot cross the cap together', async (tt) => {
      const wallet = await createWallet(app, 0)
      const answers = await Promise.all(Array.from({ length: 12 }, async () => await deposit(wallet.id, MAX_AMOUNT)))
      tt.equal(answers.filter((answer) => answer.statusCode === 200).length, MAX_BALANCE / MAX_AMOUNT)
      tt.ok(answers.every((answer) => answer.statusCode === 200 || answer.json().code === 'BALANCE_LIMIT_EXCEEDED'))
      const result = await audit(wallet.id)
      tt.same(result, { balanceMicros: MAX_BALANCE_MICROS, journalMicros: MAX_BALANCE_MICROS })
    })

    await t.test('an unknown wallet is still a 404', async (tt) => {
      tt.equal((await deposit('wal_missing', 1)).statusCode, 404)
    })
  })

  test(`the store refuses balances above the cap on ${backend.name}, whoever calls it`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url)
    t.teardown(() => store.close())
    const overTheCap = { ok: false, reason: 'BALANCE_LIMIT_EXCEEDED' }
    t.same(await issueWallet(store.wallets, { micros: MAX_BALANCE_MICROS + 1, currency: 'USD', label: null }), overTheCap)
    const wallet = await issuedWallet(store, MAX_BALANCE_MICROS)
    t.equal(wallet.balance, MAX_BALANCE)
    t.same(await store.wallets.deposit(wallet.id, 1, null), overTheCap)
    t.same(await store.wallets.deposit('wal_missing', 1, null), { ok: false, reason: 'WALLET_NOT_FOUND' })
    t.same(await store.journal.audit(wallet.id), { balanceMicros: MAX_BALANCE_MICROS, journalMicros: MAX_BALANCE_MICROS })
  })
}
