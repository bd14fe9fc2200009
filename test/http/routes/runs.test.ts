import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { backends } from '../../databases.js'
import { balanceOf, createWallet } from '../../helper.js'
import { beeBody, publish, publishingSetup } from '../../publishing-helper.js'
import { within } from '../../within.js'

/** How long the slow upstream takes: a few seconds in CI; RUN_TEST_UPSTREAM_MS=30000 runs the 30-second case. */
const UPSTREAM_MS = Number(process.env.RUN_TEST_UPSTREAM_MS ?? 1500)

const ASYNC = { 'x-registry-wallet-token': '', prefer: 'respond-async' }

interface RunBody { id: string, status: string, honey: { result: unknown } | null, error: { code: string } | null, runKey?: string }

/** Reads the run at `location` until its status is final (or the time is up); returns it. */
async function settled (app: FastifyInstance, location: string, headers: Record<string, string>, ms = UPSTREAM_MS + 10_000): Promise<RunBody> {
  let run: RunBody | undefined
  await within(ms, async () => {
    run = (await app.inject({ url: location, headers })).json<RunBody>()
    return !['queued', 'running'].includes(run.status)
  })
  return run as RunBody
}

const kinds = async (app: FastifyInstance, walletId: string) => (await app.ledger.journal.recent(walletId, 100)).map((entry) => entry.kind).sort()

for (const backend of backends) {
  test(`runs of async Bees over HTTP on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const { app, fake, publisher } = await publishingSetup(t, { DATABASE_URL: database.url, RUN_POLL_MS: '50', RUN_LEASE_SECONDS: '3' })
    const paid = { type: 'pay-per-use', costPerCall: 0.25 }
    await publish(app, publisher.headers, beeBody('slow-shouter', fake.url, { pricing: paid, config: { executionMode: 'async', maxRunSeconds: 60 } }))
    await publish(app, publisher.headers, beeBody('free-slow', fake.url, { config: { executionMode: 'async' } }))
    await publish(app, publisher.headers, beeBody('brief', fake.url, { pricing: paid, config: { executionMode: 'async', maxRunSeconds: 1 } }))
    let release = () => {}
    /** The upstream answers UPSTREAM_MS after the call, or when released. */
    const slowUpstream = () => {
      fake.beforeAnswer = async () => await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, UPSTREAM_MS)
        release = () => { clearTimeout(timer); resolve() }
      })
    }
    t.teardown(() => release())
    const start = async (beeId: string, token: string | null, extra: Record<string, string> = {}, payload: object = { text: 'hi' }) => await app.inject({
      method: 'POST',
      url: `/api/bees/${beeId}/execute`,
      payload,
      headers: { ...(token === null ? {} : { 'x-registry-wallet-token': token }), prefer: ASYNC.prefer, ...extra }
    })

    await t.test('Prefer: respond-async answers 202 at once; polling returns the Honey, captured exactly once', async (t) => {
      slowUpstream()
      const wallet = await createWallet(app, 1)
      const headers = { 'x-registry-wallet-token': wallet.token }
      const started = await start('slow-shouter', wallet.token)
      t.equal(started.statusCode, 202, started.body)
      t.equal(started.headers['preference-applied'], 'respond-async')
      const run = started.json<RunBody>()
      t.equal(started.headers.location, `/api/runs/${run.id}`)
      t.match(run, { beeId: 'slow-shouter', status: 'queued', honey: null, error: null, maxRunSeconds: 60 })
      t.notOk('runKey' in run, 'a paying caller reads its run with its wallet token')
      t.equal(await balanceOf(app, wallet.id), 0.75, 'held at admission')
      const early = await app.inject({ url: started.headers.location as string, headers })
      t.equal(early.statusCode, 200)
      t.match(early.json(), { id: run.id, status: /^(queued|running)$/ })
      t.equal(early.headers['retry-after'], '1')
      const done = await settled(app, started.headers.location as string, headers)
      t.match(done, { status: 'succeeded', honey: { beeId: 'slow-shouter', result: { shout: 'HI', length: 2 } }, error: null })
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'], 'one hold, one capture')
      t.equal(await balanceOf(app, wallet.id), 0.75)
      t.equal(fake.calls.length, 1, 'the upstream was called once')
      t.equal((await app.inject({ url: started.headers.location as string, headers })).headers['retry-after'], undefined, 'a finished run needs no polling')
    })

    await t.test('cancel voids the hold and stops the upstream; the run stays cancelled', async (t) => {
      slowUpstream()
      const wallet = await createWallet(app, 1)
      const headers = { 'x-registry-wallet-token': wallet.token }
      const run = (await start('slow-shouter', wallet.token)).json<RunBody>()
      t.not(await within(5000, async () => (await app.inject({ url: `/api/runs/${run.id}`, headers })).json<RunBody>().status === 'running'), null)
      const cancelled = await app.inject({ method: 'POST', url: `/api/runs/${run.id}/cancel`, headers })
      t.equal(cancelled.statusCode, 200)
      t.match(cancelled.json(), { status: 'cancelled', honey: null })
      t.equal(await balanceOf(app, wallet.id), 1, 'the hold was voided')
      t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'])
      release()
      const again = await app.inject({ method: 'POST', url: `/api/runs/${run.id}/cancel`, headers })
      t.match(again.json(), { status: 'cancelled' }, 'cancelling an ended run answers it as it ended')
      t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'], 'never captured')
    })

    await t.test('the same Idempotency-Key returns the same run, held once; with another input it is refused', async (t) => {
      slowUpstream()
      const wallet = await createWallet(app, 1)
      const key = { 'idempotency-key': 'run-key-1' }
      const first = await start('slow-shouter', wallet.token, key)
      const second = await start('slow-shouter', wallet.token, key)
      t.equal(second.statusCode, 202)
      t.equal(second.json<RunBody>().id, first.json<RunBody>().id)
      t.equal(second.headers['idempotent-replayed'], 'true')
      t.equal(await balanceOf(app, wallet.id), 0.75, 'held once')
      const other = await start('slow-shouter', wallet.token, key, { text: 'other' })
      t.equal(other.statusCode, 422)
      t.equal(other.json<{ code: string }>().code, 'IDEMPOTENCY_KEY_REUSED')
      release()
      const done = await settled(app, `/api/runs/${first.json<RunBody>().id}`, { 'x-registry-wallet-token': wallet.token })
      t.equal(done.status, 'succeeded')
      const after = await start('slow-shouter', wallet.token, key)
      t.match(after.json(), { id: done.id, status: 'succeeded' }, 'the finished run, not a new one')
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
    })

    await t.test('only the caller who started a run finds it', async (t) => {
      fake.beforeAnswer = async () => {}
      const owner = await createWallet(app, 1)
      const stranger = await createWallet(app, 1)
      const run = (await start('slow-shouter', owner.token)).json<RunBody>()
      for (const headers of [{ 'x-registry-wallet-token': stranger.token }, {}]) {
        const read = await app.inject({ url: `/api/runs/${run.id}`, headers })
        t.equal(read.statusCode, 404)
        t.equal(read.json<{ code: string }>().code, 'RUN_NOT_FOUND')
        t.equal((await app.inject({ method: 'POST', url: `/api/runs/${run.id}/cancel`, headers })).statusCode, 404)
      }
      const free = await start('free-slow', null)
      t.equal(free.statusCode, 202)
      const freeRun = free.json<RunBody>()
      t.match(freeRun.runKey, /^rk_/)
      t.equal(free.headers.location, `/api/runs/${freeRun.id}?key=${freeRun.runKey}`)
      t.equal((await settled(app, free.headers.location as string, {})).status, 'succeeded', 'the Location is the capability')
      t.equal((await app.inject({ url: `/api/runs/${freeRun.id}` })).statusCode, 404, 'without its key')
      t.equal((await app.inject({ url: `/api/runs/${freeRun.id}?key=rk_wrong` })).statusCode, 404, 'with another key')
      t.equal((await app.inject({ url: `/api/runs/${freeRun.id}`, headers: { 'x-registry-wallet-token': owner.token } })).statusCode, 404)
      t.equal((await app.inject({ url: '/api/runs/not-a-run' })).statusCode, 404)
    })

    await t.test('a run past its maxRunSeconds fails with BEE_TIMEOUT, and its hold is voided', async (t) => {
      fake.mode = 'slow'
      t.teardown(() => { fake.mode = 'ok' })
      const wallet = await createWallet(app, 1)
      const started = await start('brief', wallet.token)
      const done = await settled(app, started.headers.location as string, { 'x-registry-wallet-token': wallet.token })
      t.match(done, { status: 'failed', honey: null, error: { code: 'BEE_TIMEOUT' } })
      t.equal(await balanceOf(app, wallet.id), 1)
      t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'])
    })

    await t.test('without respond-async, the call waits for a quick run and answers its Honey, or 202 once Prefer: wait runs out', async (t) => {
      fake.beforeAnswer = async () => {}
      const wallet = await createWallet(app, 1)
      const quick = await start('slow-shouter', wallet.token, { prefer: 'wait=5' })
      t.equal(quick.statusCode, 200, quick.body)
      t.match(quick.json(), { beeId: 'slow-shouter', result: { shout: 'HI' } })
      t.match(quick.headers['content-location'], /^\/api\/runs\/run_/)
      slowUpstream()
      const waited = await start('slow-shouter', wallet.token, { prefer: 'wait=0' })
      t.equal(waited.statusCode, 202)
      t.equal(waited.headers['preference-applied'], undefined, 'respond-async was not asked for')
      release()
      fake.mode = 'error'
      t.teardown(() => { fake.mode = 'ok' })
      const failed = await start('slow-shouter', wallet.token, { prefer: 'wait=5' })
      t.equal(failed.statusCode, 502, 'a failure within the wait answers as a sync call would')
      t.equal(failed.json<{ code: string }>().code, 'BEE_UPSTREAM_ERROR')
    })

    await t.test('a caller lists its runs, newest first, a page at a time', async (t) => {
      fake.beforeAnswer = async () => {}
      const wallet = await createWallet(app, 5)
      const headers = { 'x-registry-wallet-token': wallet.token }
      const ids: string[] = []
      for (let i = 0; i < 3; i++) ids.push((await start('slow-shouter', wallet.token)).json<RunBody>().id)
      const first = await app.inject({ url: '/api/runs?limit=2', headers })
      t.equal(first.statusCode, 200)
      const page = first.json<{ runs: RunBody[], nextCursor: string }>()
      t.same(page.runs.map((run) => run.id), [ids[2], ids[1]])
      const next = (await app.inject({ url: `/api/runs?limit=2&cursor=${page.nextCursor}`, headers })).json<{ runs: RunBody[], nextCursor: string | null }>()
      t.same(next.runs.map((run) => run.id), [ids[0]])
      t.equal(next.nextCursor, null)
      const missing = await app.inject({ url: '/api/runs' })
      t.equal(missing.statusCode, 401)
      t.equal(missing.json<{ code: string }>().code, 'WALLET_TOKEN_MISSING')
      t.equal((await app.inject({ url: '/api/runs?cursor=garbage!!', headers })).statusCode, 400)
    })

    await t.test('a sync Bee ignores Prefer: respond-async', async (t) => {
      await publish(app, publisher.headers, beeBody('quick', fake.url))
      const answered = await start('quick', null)
      t.equal(answered.statusCode, 200)
      t.equal(answered.headers['preference-applied'], undefined)
    })
  })
}
