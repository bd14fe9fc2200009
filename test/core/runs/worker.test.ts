import { test } from 'tap'
import type { Ledger } from '../../../src/core/ledger/ledger.js'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { hashSecret } from '../../../src/core/ledger/secrets.js'
import type { NewRun } from '../../../src/core/ledger/runs/run-repository.js'
import { later, now } from '../../../src/core/ledger/timestamps.js'
import { issueWallet } from '../../../src/core/ledger/wallets/issue-wallet.js'
import { Registry } from '../../../src/core/registry.js'
import { RunEvents } from '../../../src/core/runs/run-events.js'
import { RunSignals } from '../../../src/core/runs/signals.js'
import { RunWorker } from '../../../src/core/runs/worker.js'
import { backends } from '../../databases.js'
import { SECRETS_KEY } from '../../helper.js'
import { SILENT } from '../preparations/preparation-fixture.js'
import { newRun } from './run-fixture.js'
import { echoBee } from '../../echo-bee.js'

const PRICE = 250_000

/** A paid run of `echo` with its hold placed, as the execute door leaves it. */
async function paidRun (ledger: Ledger, extra: Partial<NewRun> = {}) {
  const issued = await issueWallet(ledger.wallets, { micros: 1_000_000, currency: 'USD', label: null })
  if (!issued.ok) throw new Error('no wallet')
  const { wallet } = issued
  const held = await ledger.holds.place({
    tokenHash: hashSecret(wallet.token),
    micros: PRICE,
    currency: 'USD',
    beeId: 'echo',
    requestId: 'req',
    claim: null,
    expiresInSeconds: 600
  })
  if (!held.ok) throw new Error('no hold')
  const { run } = await ledger.runs.insert(newRun({ holdId: held.holdId, ...extra }))
  const kinds = async () => (await ledger.journal.recent(wallet.id, 50)).map((entry) => entry.kind).sort()
  return { run, holdId: held.holdId, kinds }
}

for (const backend of backends) {
  test(`the run worker on ${backend.name}: a run left by a dead worker is finished, charged at most once`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const ledger = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => ledger.close())
    const registry = new Registry()
    let calls = 0
    registry.register(echoBee({
      pricing: { type: 'pay-per-use', costPerCall: 0.25, currency: 'USD' },
      config: { primaryServices: ['echo'], executionMode: 'async', executionProvider: 'test' },
      execute: async ({ text }) => {
        calls++
        return { result: { text }, confidence: 1, freshness: 0 }
      }
    }))
    const events = new RunEvents({ ledger, log: SILENT, pollMs: 1000, relistenMs: 1000 })
    const worker = new RunWorker({ ledger, registry, signals: new RunSignals(), events, leaseSeconds: 30, sweepMs: 0, retentionHours: 1, log: SILENT })
    /** A worker that claimed the run, then died: its lease has passed. */
    const diedWith = async (id: string) => await ledger.runs.claim({ id, runToken: 'dead', now: now(), leaseUntil: later(-1) })

    await t.test('died before the Bee answered: the run is done again, and captured once', async (t) => {
      const { run, kinds } = await paidRun(ledger)
      await diedWith(run.id)
      calls = 0
      t.equal(await worker.runOnce(), 'succeeded')
      t.match(await ledger.runs.get(run.id), { status: 'succeeded', attempts: 2 })
      t.equal(calls, 1)
      t.same(await kinds(), ['capture', 'deposit', 'hold'])
    })

    await t.test('died with the answer kept, before the capture: the answer is sold, the Bee not called again', async (t) => {
      const { run, kinds } = await paidRun(ledger)
      await diedWith(run.id)
      t.ok(await ledger.runs.keepAnswer(run.id, 'dead', JSON.stringify({ beeId: 'echo', result: { text: 'hi' } })))
      calls = 0
      t.equal(await worker.runOnce(), 'succeeded')
      t.equal(calls, 0)
      t.match(await ledger.runs.get(run.id), { status: 'succeeded' })
      t.same(await kinds(), ['capture', 'deposit', 'hold'])
    })

    await t.test('died after the capture: the run is marked succeeded, not charged twice', async (t) => {
      const { run, holdId, kinds } = await paidRun(ledger)
      await diedWith(run.id)
      t.ok(await ledger.runs.keepAnswer(run.id, 'dead', JSON.stringify({ beeId: 'echo', result: { text: 'hi' } })))
      t.ok(await ledger.holds.capture(holdId, 'req', null))
      t.equal(await worker.runOnce(), 'succeeded')
      t.match(await ledger.runs.get(run.id), { status: 'succeeded' })
      t.same(await kinds(), ['capture', 'deposit', 'hold'], 'one capture')
    })

    await t.test('a hold released while the run waited: the answer is not served, nothing charged', async (t) => {
      const { run, holdId, kinds } = await paidRun(ledger)
      t.ok(await ledger.holds.void(holdId, null))
      t.equal(await worker.runOnce(), 'failed')
      t.match(await ledger.runs.get(run.id), { status: 'failed', honey: null, error: { code: 'HOLD_EXPIRED' } })
      t.same(await kinds(), ['deposit', 'hold', 'void'])
    })

    await t.test('a run past its expiry is expired by the sweep, and its hold voided', async (t) => {
      const { run, kinds } = await paidRun(ledger, { expiresAt: later(-1) })
      t.equal(await worker.runOnce(), 'idle')
      t.match(await ledger.runs.get(run.id), { status: 'expired', error: { code: 'RUN_EXPIRED' } })
      t.same(await kinds(), ['deposit', 'hold', 'void'])
    })

    await t.test('a run ended longer ago than RUN_RETENTION_HOURS is purged by the sweep; a younger one is kept', async (t) => {
      const { run: old } = await ledger.runs.insert(newRun())
      const { run: recent } = await ledger.runs.insert(newRun())
      await ledger.runs.settle(old.id, { from: ['queued'], status: 'cancelled', at: later(-3601) })
      await ledger.runs.settle(recent.id, { from: ['queued'], status: 'cancelled', at: later(-3599) })
      t.equal(await worker.runOnce(), 'idle')
      t.equal(await ledger.runs.get(old.id), null, 'purged: its id answers 404')
      t.match(await ledger.runs.get(recent.id), { status: 'cancelled' })
    })
  })
}
