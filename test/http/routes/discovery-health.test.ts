import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { backends } from '../../databases.js'
import { startFakeBee, type FakeBee } from '../../fake-bee.js'
import { build, createWallet, execute } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'

interface Health { windowMinutes: number, calls: number, successRate: number | null, p50Ms: number | null, p95Ms: number | null, conformance: number | null }
interface Listed { id: string, health: Health }

const input = { text: 'buzz' }
/** The test syncs when it means to (app.beeHealth.sync()); the timer's first turn comes after it ends. */
const syncOnlyWhenTold = { HEALTH_SYNC_MS: '60000' }
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function fakeBee (t: Parameters<typeof build>[0]): Promise<FakeBee> {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  return fake
}

const list = async (app: FastifyInstance, query = '') => (await app.inject(`/api/bees${query}`)).json<{ bees: Listed[], nextCursor: string | null }>()
const healthOf = async (app: FastifyInstance, id: string) => (await app.inject(`/api/bees/${id}`)).json<Listed>().health

for (const backend of backends) {
  test(`${backend.name}: runs move a Bee's health, caller errors do not; sort=reliability and minSuccessRate order and filter by it`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const [steady, flaky, sloppy, slow, idle] = await Promise.all([fakeBee(t), fakeBee(t), fakeBee(t), fakeBee(t), fakeBee(t)])
    // 2 s: long enough for any ordinary call on a loaded machine (300 ms cut some short in CI), short enough to wait for once.
    const app = await build(t, { env: { DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1', REMOTE_BEE_TIMEOUT_MS: '2000', ...syncOnlyWhenTold } })
    const publisher = await createPublisher(app)
    await publish(app, publisher.headers, beeBody('steady', steady.url, { rateLimit: { callsPerMinute: 5 } }))
    await publish(app, publisher.headers, beeBody('flaky', flaky.url))
    await publish(app, publisher.headers, beeBody('sloppy', sloppy.url))
    await publish(app, publisher.headers, beeBody('slow', slow.url, { pricing: { type: 'pay-per-use', costPerCall: 0.01 } }))
    await publish(app, publisher.headers, beeBody('idle', idle.url))
    const wallet = await createWallet(app, 1)

    t.same(await healthOf(app, 'steady'), { windowMinutes: 60, calls: 0, successRate: null, p50Ms: null, p95Ms: null, conformance: null },
      'no runs yet: no figures, not a perfect score')

    // steady: 4 runs and one replay, which is not a run; refused calls are not runs either.
    for (let i = 0; i < 3; i++) t.equal((await execute(app, 'steady', input)).statusCode, 200)
    for (let i = 0; i < 2; i++) t.equal((await execute(app, 'steady', input, wallet.token, { 'idempotency-key': 'once' })).statusCode, 200)
    t.equal((await execute(app, 'steady', { text: 5 })).statusCode, 400)
    t.equal((await execute(app, 'steady', input)).statusCode, 200)
    t.equal((await execute(app, 'steady', input)).statusCode, 429, 'its own limit of 5 calls a minute')
    t.equal(steady.calls.length, 5, 'the Bee itself ran 5 times')
    // flaky: 2 answers, an upstream failure and a timeout.
    for (let i = 0; i < 2; i++) await execute(app, 'flaky', input)
    flaky.mode = 'error'
    t.equal((await execute(app, 'flaky', input)).json().code, 'BEE_UPSTREAM_ERROR')
    flaky.mode = 'slow'
    t.equal((await execute(app, 'flaky', input)).json().code, 'BEE_TIMEOUT')
    // sloppy: 1 good answer, 1 that breaks its outputSchema, 1 that is not JSON.
    await execute(app, 'sloppy', input)
    sloppy.mode = 'invalid-output'
    t.equal((await execute(app, 'sloppy', input)).json().code, 'BEE_OUTPUT_INVALID')
    sloppy.mode = 'not-json'
    t.equal((await execute(app, 'sloppy', input)).json().code, 'BEE_OUTPUT_INVALID')
    // slow: paid; unpaid calls are refused before it runs; each paid run takes at least 600 ms: a bucket above any other
    // Bee's, whose first run (a validator compiled, a connection opened) took over 200 ms on a loaded CI host.
    t.equal((await execute(app, 'slow', input)).statusCode, 402)
    slow.beforeAnswer = () => sleep(600)
    for (let i = 0; i < 2; i++) t.equal((await execute(app, 'slow', input, wallet.token)).statusCode, 200)
    t.equal((await execute(app, 'text-summarizer', { text: 'One sentence to sum up.' })).statusCode, 200)

    const before = await app.inject('/api/bees')
    t.equal((await healthOf(app, 'steady')).calls, 0, 'counted in memory until the next sync, never a write per call')
    await app.beeHealth.sync()

    t.match(await healthOf(app, 'steady'), { windowMinutes: 60, calls: 5, successRate: 1, conformance: 1 })
    t.match(await healthOf(app, 'flaky'), { calls: 4, successRate: 0.5, conformance: 1 }, 'a failure and a timeout; what answered conformed')
    t.match(await healthOf(app, 'sloppy'), { calls: 3, successRate: 0.3333, conformance: 0.3333 })
    t.match(await healthOf(app, 'slow'), { calls: 2, successRate: 1 }, 'the 402 was not a run')
    t.match(await healthOf(app, 'text-summarizer'), { calls: 1, successRate: 1 }, 'built-in Bees too')
    t.ok((await healthOf(app, 'slow')).p50Ms! >= 500, 'runs of 600 ms or more: the median is in their bucket (500, 1000]')
    t.ok((await healthOf(app, 'flaky')).p95Ms! >= 200, 'the timeout (2 s) is the slow tail of flaky')
    for (const bee of (await list(app)).bees) {
      const { p50Ms, p95Ms, calls } = bee.health
      if (calls > 0) t.ok(p50Ms !== null && p95Ms !== null && p50Ms <= p95Ms, `${bee.id}: p50 ≤ p95`)
    }
    const after = await app.inject({ url: '/api/bees', headers: { 'if-none-match': before.headers.etag as string } })
    t.equal(after.statusCode, 200, 'new figures, new discovery answer')
    await app.beeHealth.sync()
    t.equal((await app.inject({ url: '/api/bees', headers: { 'if-none-match': after.headers.etag as string } })).statusCode, 304,
      'no new runs: the same bytes and ETag')

    const ranked = (await list(app, '?sort=reliability')).bees
    const rates = ranked.map((bee) => bee.health.successRate)
    t.same(rates, [1, 1, 1, 0.5, 0.3333, null, null, null], 'success rate first, Bees without runs last')
    t.same(new Set(ranked.slice(0, 3).map((bee) => bee.id)), new Set(['slow', 'steady', 'text-summarizer']))
    t.equal(ranked[2]?.id, 'slow', 'among equal rates, the lowest p95 first: slow (≥ 600 ms) last of them')
    t.same(ranked.slice(5).map((bee) => bee.id), ['idle', 'sentiment-analyzer', 'weather-sensor'], 'no runs: in id order')

    const walked: string[] = []
    let cursor: string | null = null
    do {
      const page: { bees: Listed[], nextCursor: string | null } = await list(app, `?sort=reliability&limit=3${cursor === null ? '' : `&cursor=${cursor}`}`)
      walked.push(...page.bees.map((bee) => bee.id))
      cursor = page.nextCursor
    } while (cursor !== null)
    t.same(walked, ranked.map((bee) => bee.id), 'pages of the ranking add up to it')

    const ids = async (query: string) => (await list(app, query)).bees.map((bee) => bee.id)
    t.same(await ids('?minSuccessRate=0.9'), ['slow', 'steady', 'text-summarizer'], 'in id order unless sorted')
    t.same(await ids('?minSuccessRate=0.5&sort=reliability'), ranked.slice(0, 4).map((bee) => bee.id))
    t.same(await ids('?minSuccessRate=0'), ['flaky', 'sloppy', 'slow', 'steady', 'text-summarizer'], 'a Bee without runs has no rate to meet 0 with')
    t.same(await ids('?minSuccessRate=0.9&colony=core'), ['text-summarizer'], 'with the other filters')

    const refused = async (query: string, code: string) => {
      const response = await app.inject(`/api/bees${query}`)
      t.equal(response.statusCode, 400, query)
      t.match(response.json(), { error: 'Bad Request', code, message: String }, query)
    }
    await refused('?minSuccessRate=1.5', 'VALIDATION_FAILED')
    await refused('?minSuccessRate=-0.1', 'VALIDATION_FAILED')
    await refused('?minSuccessRate=most', 'VALIDATION_FAILED')
    await refused('?sort=fastest', 'VALIDATION_FAILED')
    const idCursor = (await list(app, '?limit=1')).nextCursor as string
    const rankCursor = (await list(app, '?limit=1&sort=reliability')).nextCursor as string
    await refused(`?sort=reliability&cursor=${idCursor}`, 'INVALID_CURSOR')
    await refused(`?cursor=${rankCursor}`, 'INVALID_CURSOR')
  })

  test(`${backend.name}: two instances on one database show the same, combined figures`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const fake = await fakeBee(t)
    const env = { DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1', ...syncOnlyWhenTold }
    const one = await build(t, { env })
    const two = await build(t, { env })
    const publisher = await createPublisher(one)
    await publish(one, publisher.headers, beeBody('shared', fake.url))
    await two.catalog.refresh()

    for (let i = 0; i < 3; i++) t.equal((await execute(one, 'shared', input)).statusCode, 200)
    fake.mode = 'error'
    t.equal((await execute(two, 'shared', input)).statusCode, 502)
    // In turn: two SQLite connections in one process cannot wait for each other's write lock (two processes can).
    await one.beeHealth.sync()
    await two.beeHealth.sync()
    await one.beeHealth.sync()
    for (const app of [one, two]) t.match(await healthOf(app, 'shared'), { calls: 4, successRate: 0.75, conformance: 1 })
    t.same(await healthOf(one, 'shared'), await healthOf(two, 'shared'), 'the same figures on both')

    await execute(two, 'shared', input)
    await two.close()
    await one.beeHealth.sync()
    t.equal((await healthOf(one, 'shared')).calls, 5, 'an instance that closes writes its last counts first')
  })
}
