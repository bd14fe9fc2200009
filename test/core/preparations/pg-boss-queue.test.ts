import { test, type Test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { PgBossQueue, type PgBossQueueOptions } from '../../../src/core/preparations/queue/pg-boss-queue.js'
import { PreparationWorker, type Prepare } from '../../../src/core/preparations/worker.js'
import { postgresBackend, postgresSkip, runSql } from '../../databases.js'
import { FILES as files, queuedPreparation, SILENT as silent } from './preparation-fixture.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

test('two instances on one PostgreSQL share 20 jobs through pg-boss, each run exactly once; a failed one backs off and is retried',
  { skip: postgresSkip }, async (t) => {
    const database = await postgresBackend()
    t.teardown(database.drop)

    const runs: Array<{ id: string, instance: number }> = []
    let flakyFailures = 0
    const instances = await Promise.all([0, 1].map(async (instance) => {
      const ledger = await openStore(database.url)
      const prepare: Prepare = async (preparation) => {
        runs.push({ id: preparation.id, instance })
        await sleep(100)
        if (preparation.name === 'flaky' && flakyFailures++ === 0) {
          return { ok: false, error: { code: 'SITE_UNREACHABLE', message: 'down for a moment' }, retryable: true }
        }
        return { ok: true, files }
      }
      const worker = new PreparationWorker({
        repository: ledger.preparations, prepare, leaseSeconds: 30, maxAttempts: 3, retryDelaySeconds: 1, preparerEmail: 'preparer@example.com', log: silent
      })
      const queue = new PgBossQueue(worker, {
        connectionString: database.url,
        schema: undefined,
        concurrency: 2,
        pollSeconds: 0.5,
        maxAttempts: 3,
        retryDelaySeconds: 1,
        expireInSeconds: 60,
        resendSeconds: 60,
        repository: ledger.preparations,
        log: silent
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
    for (let i = 0; i < 21; i++) {
      const preparation = queuedPreparation(i === 20 ? 'flaky' : `site ${i}`)
      const id = preparation.id
      ids.push(id)
      await first.ledger.preparations.insert(preparation)
      await (i % 2 === 0 ? first : second).queue.enqueue(id)
    }

    const deadline = Date.now() + 60_000
    let records = await Promise.all(ids.map((id) => first.ledger.preparations.get(id)))
    while (records.some((record) => record?.status !== 'completed') && Date.now() < deadline) {
      await sleep(250)
      records = await Promise.all(ids.map((id) => first.ledger.preparations.get(id)))
    }
    t.ok(records.every((record) => record?.status === 'completed'), 'every job completed')
    const steady = ids.slice(0, 20)
    t.same(steady.map((id) => runs.filter((run) => run.id === id).length), steady.map(() => 1), 'each of the 20 ran exactly once')
    t.same(new Set(runs.map((run) => run.instance)), new Set([0, 1]), 'both instances took jobs')
    const flaky = records[20]
    t.equal(runs.filter((run) => run.id === ids[20]).length, 2, 'the failed job ran again after its back-off')
    t.match(flaky, { status: 'completed', attempts: 2, error: null })
  })

/** One instance: its ledger, and a pg-boss queue of one worker whose runs all succeed, recorded in `runs`; closed with the test. */
async function oneInstance (t: Test, url: string, options: Pick<PgBossQueueOptions, 'resendSeconds' | 'log' | 'onConnectionLost'>) {
  const ledger = await openStore(url)
  const runs: string[] = []
  const worker = new PreparationWorker({
    repository: ledger.preparations,
    prepare: async (preparation) => {
      runs.push(preparation.id)
      return { ok: true, files }
    },
    leaseSeconds: 30,
    maxAttempts: 3,
    retryDelaySeconds: 1,
    preparerEmail: 'preparer@example.com',
    log: silent
  })
  const queue = new PgBossQueue(worker, {
    connectionString: url,
    schema: undefined,
    concurrency: 1,
    pollSeconds: 0.5,
    maxAttempts: 3,
    retryDelaySeconds: 1,
    expireInSeconds: 60,
    repository: ledger.preparations,
    ...options
  })
  t.teardown(async () => {
    await queue.stop()
    await ledger.close()
  })
  return { ledger, queue, runs }
}

test('a record saved by a process that died before sending its job is found and run, once, by a running instance',
  { skip: postgresSkip }, async (t) => {
    const database = await postgresBackend()
    t.teardown(database.drop)
    const warnings: unknown[] = []
    const log = { ...silent, warn: (fields: unknown) => { warnings.push(fields) } }
    const { ledger, queue, runs } = await oneInstance(t, database.url, { resendSeconds: 1, log: log as typeof silent })
    // Saved, and its process died before the job was sent: no job names it.
    const stranded = queuedPreparation('stranded')
    await ledger.preparations.insert(stranded)
    // Sent as usual: must not be sent (or run) a second time.
    const sent = queuedPreparation('sent')
    await ledger.preparations.insert(sent)
    await queue.start()
    await queue.enqueue(sent.id)

    const deadline = Date.now() + 30_000
    let record = await ledger.preparations.get(stranded.id)
    while (record?.status !== 'completed' && Date.now() < deadline) {
      await sleep(250)
      record = await ledger.preparations.get(stranded.id)
    }
    t.equal(record?.status, 'completed', 'the stranded record ran')
    // Two more passes of the resend, which must find nothing left to send.
    await sleep(2500)
    t.same(runs.filter((id) => id === stranded.id).length, 1, 'the stranded record ran once')
    t.same(runs.filter((id) => id === sent.id).length, 1, 'the record whose job was sent ran once')
    t.same(warnings, [{ preparationIds: [stranded.id] }], 'only the stranded record was sent again, and the operator told')
  })

test('the server ends every connection of pg-boss and the ledger: the queue lives on, says so once, and runs the next job',
  { skip: postgresSkip }, async (t) => {
    const database = await postgresBackend()
    t.teardown(database.drop)
    const name = `apiary-test-${Math.random().toString(16).slice(2, 10)}`
    const url = new URL(database.url)
    url.searchParams.set('application_name', name)
    const errors: unknown[] = []
    const lost: Error[] = []
    const { ledger, queue, runs } = await oneInstance(t, url.toString(), {
      resendSeconds: 60,
      log: { ...silent, error: (fields: unknown) => { errors.push(fields) } } as typeof silent,
      onConnectionLost: (error) => { lost.push(error) }
    })
    await queue.start()
    // pg-boss's own connections carry the URL's application_name too.
    const [{ n: ended }] = await runSql(database, [`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = '${name}'`]) as [{ n: number }]
    t.ok(ended >= 2, `${ended} connections ended`)

    const next = queuedPreparation('after')
    const deadline = Date.now() + 10_000
    for (;;) {
      try {
        await ledger.preparations.insert(next)
        await queue.enqueue(next.id)
        break
      } catch (error) {
        // A connection ended under the first attempt: the pools open new ones for the next.
        if (Date.now() > deadline) throw error
        await sleep(100)
      }
    }
    while (!runs.includes(next.id) && Date.now() < deadline) await sleep(100)
    t.same(runs, [next.id], 'the job sent afterwards ran')
    t.ok(lost.length >= 1, `pg-boss's lost connections were handed over (${lost.map((error) => error.message).join('; ')})`)
    t.same(errors, [], 'and nothing logged as an error')
  })
