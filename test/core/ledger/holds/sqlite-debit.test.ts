import { test } from 'tap'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import { hashSecret } from '../../../../src/core/ledger/secrets.js'
import { issuedWallet, ledgerSums, runSql, sqliteBackend } from '../../../databases.js'

const hold = (tokenHash: string, requestId: string, micros: number) =>
  ({ tokenHash, micros, currency: 'USD', beeId: 'sentiment-analyzer', requestId, claim: null, expiresInSeconds: 60 })

test('holds and captures arriving in one turn (one shared commit) each keep their own outcome, and every micro-unit adds up', async (t) => {
  const backend = sqliteBackend()
  t.teardown(backend.drop)
  const ledger = await openStore(backend.url)
  t.teardown(() => ledger.close())
  const wallet = await issuedWallet(ledger, 10_000)
  const tokenHash = hashSecret(wallet.token)
  const first = await Promise.all([1, 2, 3].map(async (i) => await ledger.holds.place(hold(tokenHash, `first-${i}`, 1_000))))
  const ids = first.map((outcome) => outcome.ok ? outcome.holdId : -1)
  t.ok(first.every((outcome) => outcome.ok), 'the first three calls are held')

  // One turn of the event loop: captures (one of them twice), new holds, and one hold the balance no longer covers.
  const [captured, again, other, held, tooMuch] = await Promise.all([
    ledger.holds.capture(ids[0] as number, 'first-1', null),
    ledger.holds.capture(ids[0] as number, 'first-1-again', null),
    ledger.holds.capture(ids[1] as number, 'first-2', null),
    ledger.holds.place(hold(tokenHash, 'second-1', 2_000)),
    ledger.holds.place(hold(tokenHash, 'second-2', 6_000))
  ])
  t.equal(captured, true)
  t.equal(again, false, 'a hold is captured once, even twice in one batch')
  t.equal(other, true)
  t.match(held, { ok: true, balanceMicros: 5_000 })
  t.match(tooMuch, { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: 5_000 })
  t.equal(await ledger.holds.void(ids[2] as number, 'first-3'), true)

  const journal = await runSql(backend, ["SELECT kind, COUNT(*) AS n, SUM(amount) AS total FROM journal WHERE kind <> 'deposit' GROUP BY kind ORDER BY kind"])
  t.same(journal, [
    { kind: 'capture', n: 2, total: 2_000 },
    { kind: 'hold', n: 4, total: 5_000 },
    { kind: 'void', n: 1, total: 1_000 }
  ])
  const sums = await ledgerSums(backend)
  t.equal(sums.held, sums.owed, 'every micro-unit is in a wallet, a pending hold or earnings')
  t.equal((await ledger.wallets.get(wallet.id))?.balance, 0.006, 'the wallet paid for the two captures and still holds the pending one')
})
