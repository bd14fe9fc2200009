import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { checkCase, createWallet, faultSkip, moreAnswers, outageLines, sleep, startLoad, startService, until } from './harness.js'
import { redisKeys, shutDownRedis, sqliteBooks } from './machine.js'

const redisSkip = process.env.TEST_REDIS_URL === undefined || process.env.TEST_REDIS_URL === '' ? 'TEST_REDIS_URL is not set' : false

test('Redis shut down and started again under load', { skip: faultSkip() || redisSkip }, async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'apiary-fault-'))
  t.teardown(() => { rmSync(folder, { recursive: true, force: true }) })
  const prefix = `apiary-fault-${randomBytes(4).toString('hex')}:`
  const database = join(folder, 'apiary.db')
  const service = await startService(t, { DATABASE_URL: database, REDIS_URL: process.env.TEST_REDIS_URL as string, REDIS_KEY_PREFIX: prefix })
  const wallet = await createWallet(service.url, 1000)
  const load = startLoad(t, service.url, wallet.token)
  await moreAnswers(load.seen, 200)
  t.ok(await redisKeys(prefix) > 0, 'the callers are counted in Redis')

  const start = await shutDownRedis(t)
  const served = load.seen.successes.length
  await sleep(3000)
  t.ok(load.seen.successes.length - served >= 50, `calls go on while Redis is away (${load.seen.successes.length - served} in 3 s)`)
  t.same(await (await fetch(`${service.url}/ready`)).json(), { status: 'ready', degraded: ['redis'] }, '/ready serves, and says the limits are off')

  await start()
  const backAt = Date.now()
  const counting = await until(10_000, async () => await redisKeys(prefix) > 0)
  const whole = await until(10_000, async () => JSON.stringify(await (await fetch(`${service.url}/ready`)).json()) === '{"status":"ready"}')
  t.comment(`after Redis's return: counting again in ${counting === null ? null : counting - backAt} ms, /ready whole in ${whole === null ? null : whole - backAt} ms`)
  t.ok(counting !== null && counting - backAt <= 2000, 'callers are counted in Redis again within 2 s')
  t.ok(whole !== null && whole - backAt <= 2000, '/ready drops `degraded` within 2 s')
  await moreAnswers(load.seen, 50)
  const seen = await load.stop()
  checkCase(t, service, seen, await sqliteBooks(database, wallet.id, 1000 * 1e6), 1000)
  t.same([...seen.statuses.keys()].filter((status) => status !== '200'), [], 'every call answered 200 throughout')

  const { started, ended, stacks } = outageLines(service.lines(), 'Redis')
  t.equal(started.length, 1, 'one line when it went away')
  t.equal(ended.length, 1, 'one when it came back')
  t.comment(`its end: ${JSON.stringify(ended[0])}`)
  t.same(stacks.filter((line) => !started.includes(line)).map((line) => line.msg), [], 'no stack but the outage\'s first error')
})
