import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { PreparationWorker, type Prepare, type WorkerOptions } from '../../../src/core/preparations/worker.js'
import { backends } from '../../databases.js'
import { FILES as files, queuedPreparation as record, SILENT as silent } from './preparation-fixture.js'

for (const backend of backends) {
  test(`the worker's lifecycle on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const ledger = await openStore(database.url)
    t.teardown(() => ledger.close())
    const repository = ledger.preparations
    const worker = (prepare: Prepare, options: Partial<WorkerOptions> = {}) => new PreparationWorker({
      repository, prepare, leaseSeconds: 30, maxAttempts: 2, retryDelaySeconds: 60, preparerEmail: 'preparer@example.com', log: silent, ...options
    })

    await t.test('a run that succeeds completes the record, completedBy the preparer', async (t) => {
      const preparation = record()
      await repository.insert(preparation)
      t.equal(await worker(async (_p, run) => {
        run.report({ pagesFetched: 1, pagesPlanned: 3, stage: 'crawling' })
        return { ok: true, files }
      }).runOnce(preparation.id), 'completed')
      const done = await repository.get(preparation.id)
      t.match(done, { status: 'completed', attempts: 1, error: null, progress: { stage: 'done' }, outputFiles: { ...files, completedBy: 'preparer@example.com' } })
    })

    await t.test('a failure that may pass is retried after a back-off, then stays failed with its error', async (t) => {
      const preparation = record()
      await repository.insert(preparation)
      const failing = worker(async () => ({ ok: false, error: { code: 'SITE_UNREACHABLE', message: 'down' }, retryable: true }))
      t.equal(await failing.runOnce(preparation.id), 'retry')
      const waiting = await repository.get(preparation.id)
      t.match(waiting, { status: 'queued', attempts: 1, error: { code: 'SITE_UNREACHABLE' } })
      t.equal(await failing.runOnce(), 'idle', 'the database queue waits out the back-off')
      t.equal(await failing.runOnce(preparation.id), 'failed', 'the last attempt fails for good')
      t.match(await repository.get(preparation.id), { status: 'failed', attempts: 2, error: { code: 'SITE_UNREACHABLE', message: 'down' } })
    })

    await t.test('a failure that will not pass fails at once', async (t) => {
      const preparation = record()
      await repository.insert(preparation)
      t.equal(await worker(async () => ({ ok: false, error: { code: 'ROBOTS_DISALLOWED', message: 'no' }, retryable: false })).runOnce(preparation.id), 'failed')
    })

    await t.test('a run whose record is canceled meanwhile stops and writes nothing', async (t) => {
      const preparation = record()
      await repository.insert(preparation)
      const result = worker(async (_p, run) => {
        await repository.change(preparation.id, ['running'], { status: 'canceled', updatedAt: new Date().toISOString() })
        run.report({ pagesFetched: 1, pagesPlanned: 2, stage: 'crawling' })
        await new Promise((resolve) => run.signal.addEventListener('abort', resolve))
        return { ok: true, files }
      }).runOnce(preparation.id)
      t.equal(await result, 'abandoned')
      t.match(await repository.get(preparation.id), { status: 'canceled', outputFiles: null })
    })

    await t.test('a record left running by a dead worker is claimed again once its lease has passed', async (t) => {
      const preparation = record()
      await repository.insert(preparation)
      const past = new Date(Date.now() - 1000).toISOString()
      t.ok(await repository.claim({ id: preparation.id, runToken: 'dead-worker', now: past, leaseUntil: past }))
      t.equal(await worker(async () => ({ ok: true, files })).runOnce(preparation.id), 'completed')
      t.equal(await repository.settle(preparation.id, 'dead-worker', { status: 'failed', updatedAt: past }), false, 'the dead run can no longer write')
      t.match(await repository.get(preparation.id), { status: 'completed', attempts: 2 })
    })

    await t.test('a run stopped by shutdown goes back to the queue, its attempt not counted', async (t) => {
      const preparation = record()
      await repository.insert(preparation)
      const stopping = worker(async (_p, run) => {
        stopping.stop()
        t.ok(run.signal.aborted)
        return { ok: false, error: { code: 'X', message: 'stopped' }, retryable: true }
      })
      t.equal(await stopping.runOnce(preparation.id), 'interrupted')
      t.match(await repository.get(preparation.id), { status: 'queued', attempts: 0, error: null })
    })
  })
}
