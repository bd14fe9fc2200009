import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { PAID_BEE, PAID_INPUT } from '../doors.js'
import { build, createWallet, execute } from '../helper.js'
import { startTcpProxy } from '../tcp-proxy.js'
import { within } from '../within.js'

const redisSkip = process.env.TEST_REDIS_URL === undefined || process.env.TEST_REDIS_URL === ''
  ? 'TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)'
  : false

interface LogLine { level: number, msg: string, err?: { stack?: string }, [field: string]: unknown }

test('Redis away and back: calls are served without the shared limits meanwhile, /ready says so, the log says it twice, limits again within 2 s', { skip: redisSkip }, async (t) => {
  const target = new URL(process.env.TEST_REDIS_URL as string)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port === '' ? 6379 : target.port) })
  t.teardown(proxy.close)
  const logLines: string[] = []
  // A window longer than the test, and counters of this run's own: keys in Redis outlive it.
  const app = await build(t, {
    env: {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      REDIS_KEY_PREFIX: `apiary-test-${randomBytes(6).toString('hex')}:`,
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      RATE_LIMIT_WALLET_PER_WINDOW: '3'
    },
    logLines
  })
  const wallet = await createWallet(app, 10)
  const call = async (on: FastifyInstance) => (await execute(on, PAID_BEE, PAID_INPUT, wallet.token)).statusCode
  const statuses = []
  for (let i = 0; i < 4; i++) statuses.push(await call(app))
  t.same(statuses, [200, 200, 200, 429], 'the wallet\'s limit, counted in Redis')

  await proxy.cut()
  const meanwhile = []
  for (let i = 0; i < 20; i++) meanwhile.push(await call(app))
  t.same(new Set(meanwhile), new Set([200]), 'served, uncounted, while Redis is away')
  const ready = await app.inject('/ready')
  t.same([ready.statusCode, ready.json()], [200, { status: 'ready', degraded: ['redis'] }], '/ready serves, and says what is missing')

  await proxy.restore()
  const limitedIn = await within(2000, async () => await call(app) === 429)
  t.not(limitedIn, null, `the limit holds again within 2 s of its return (${limitedIn} ms)`)
  t.same((await app.inject('/ready')).json(), { status: 'ready' })

  const lines = logLines.map((line) => JSON.parse(line) as LogLine)
  const started = lines.filter((line) => line.msg.startsWith('Redis unavailable'))
  const ended = lines.filter((line) => line.msg === 'Redis back')
  t.equal(started.length, 1, 'one line when it went away')
  t.equal(ended.length, 1, 'one when it came back')
  t.match(ended[0], { dependency: 'Redis', downMs: Number })
  t.same(lines.filter((line) => line.err?.stack !== undefined && line !== started[0]).map((line) => line.msg), [], 'no other stack in the log')
})
