import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { later, now } from '../../../src/core/ledger/timestamps.js'
import { Registry } from '../../../src/core/registry.js'
import { PgBossRunQueue } from '../../../src/core/runs/pg-boss-run-queue.js'
import { RunEvents } from '../../../src/core/runs/run-events.js'
import { RunSignals } from '../../../src/core/runs/signals.js'
import { RunWorker } from '../../../src/core/runs/worker.js'
import { postgresBackend, postgresSkip } from '../../databases.js'
import { within } from '../../within.js'
import { SILENT } from '../preparations/preparation-fixture.js'
import { newRun } from './run-fixture.js'
import { echoBee } from '../../echo-bee.js'

const run = () => newRun()

test('two instances on one PostgreSQL share runs through pg-boss, each run once; a dead worker\'s run is taken over', { skip: postgresSkip }, async (t) => {
  const database = await postgresBackend()
  t.teardown(database.drop)
  const ran: Array<{ text: string, instance: number }> = []
  const instances = await Promise.all([0, 1].map(async (instance) => {
    const ledger = await openStore(database.url)
    const registry = new Registry()
    registry.register(echoBee({
      config: { primaryServices: ['echo'], executionMode: 'async', executionProvider: 'test' },
      execute: async ({ text }) => {
        ran.push({ text, instance })
        await new Promise((resolve) => setTimeout(resolve, 100))
        return { result: { text }, confidence: 1, freshness: 0 }
      }
    }))
    const events = new RunEvents({ ledger, log: SILENT, pollMs: 1000, relistenMs: 1000 })
    const worker = new RunWorker({ ledger, registry, signals: new RunSignals(), events, leaseSeconds: 30, sweepMs: 100, retentionHours: 1, log: SILENT })
    const queue = new PgBossRunQueue(worker, {
      connectionString: database.url, schema: undefined, concurrency: 2, pollMs: 200, expireInSeconds: 120, lostJobSeconds: 5, log: SILENT
    })
    await queue.start()
    return { ledger, queue }
  }))
  t.teardown(async () => {
    for (const { ledger, queue } of instances) {
      await queue.stop()
      await ledger.close()
    }
  })
  const [first, second] = instances as [typeof instances[0], typeof instances[0]]

  const ids: string[] = []
  for (let i = 0; i < 10; i++) {
    const { run: queued } = await first.ledger.runs.insert({ ...run(), input: { text: `run ${i}` } })
    ids.push(queued.id)
    await (i % 2 === 0 ? first : second).queue.enqueue(queued.id)
  }
  // Claimed by a worker that died at once (its lease passed), with no job: the poller finds it.
  const { run: orphan } = await first.ledger.runs.insert({ ...run(), input: { text: 'orphan' } })
  await first.ledger.runs.claim({ id: orphan.id, runToken: 'dead', now: now(), leaseUntil: later(-1) })
  ids.push(orphan.id)

  const done = await within(15_000, async () => {
    const statuses = await Promise.all(ids.map(async (id) => (await first.ledger.runs.get(id))?.status))
    return statuses.every((status) => status === 'succeeded')
  })
  t.not(done, null, 'every run succeeded')
  t.equal(ran.length, 11, 'each run was done once')
  t.same(new Set(ran.map((entry) => entry.text)).size, 11)
  t.ok(new Set(ran.map((entry) => entry.instance)).size === 2, 'both instances worked')
  t.match(await first.ledger.runs.get(orphan.id), { status: 'succeeded', attempts: 2 })
})
