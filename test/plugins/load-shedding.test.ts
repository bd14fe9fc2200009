import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { build, createWallet, execute } from '../helper.js'

const METRICS_TOKEN = 'metrics-token-0123456789abcdef'

test('under pressure, requests are shed with 503 OVERLOADED and Retry-After, nothing is charged, probes and the scrape still answer', async (t) => {
  // Any heap is over one byte: the instance is under pressure from its first sample (every second) on.
  // The wallet is made before that first sample; the models, which can take longer, load after it.
  const lines: string[] = []
  const app = await build(t, { env: { PRESSURE_MAX_HEAP_USED_BYTES: '1', PRESSURE_RETRY_AFTER_SECONDS: '7', METRICS_TOKEN }, warmUp: false, logLines: lines })
  const wallet = await createWallet(app, 1)
  await app.warmUp.start()
  await sleep(1200)
  t.ok(app.isUnderPressure())

  const shed = await app.inject({ url: '/api/bees' })
  t.equal(shed.statusCode, 503)
  t.equal(shed.headers['retry-after'], '7')
  t.match(shed.json(), { error: 'Service Unavailable', code: 'OVERLOADED', message: /heapUsedBytes.*Retry in 7 s/ })

  const paid = await execute(app, 'sentiment-analyzer', { text: 'Lovely.' }, wallet.token)
  t.equal(paid.statusCode, 503)
  // Read from the ledger: the admin API is shed too.
  t.match(await app.ledger.wallets.get(wallet.id), { balance: 1, held: 0 }, 'a shed call is never charged')

  t.equal((await app.inject({ url: '/health' })).statusCode, 200, 'liveness still answers: the process is alive')
  const ready = await app.inject({ url: '/ready' })
  t.equal(ready.statusCode, 503, 'readiness says to route around this instance')
  t.equal(ready.headers['retry-after'], '7')
  t.match(ready.json(), { code: 'OVERLOADED' })
  t.equal((await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).statusCode, 200,
    'the scrape still answers, when it matters most')
  const faults = lines.map((line) => JSON.parse(line) as { level: number, msg: string }).filter((line) => line.level >= 50)
  t.same(faults.map((line) => line.msg), [], 'shedding is the instance working as it should: no shed request or probe is logged as a fault')
})

test('with the default limits an idle instance is not under pressure', async (t) => {
  const app = await build(t)
  await sleep(1200)
  t.notOk(app.isUnderPressure())
  t.equal((await app.inject({ url: '/ready' })).statusCode, 200)
  t.equal((await app.inject({ url: '/api/bees' })).statusCode, 200)
})

test('the event loop\'s block at start-up (loading the Bees) is not taken for load: the first requests are served', async (t) => {
  const app = await build(t, { env: { PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '100' } })
  // What a cold start does on a slow machine: the loop is blocked for well over the limit before the first sample.
  const until = performance.now() + 1500
  while (performance.now() < until);
  await sleep(50)
  t.ok(app.isUnderPressure(), 'the first reading is of the start-up block')
  t.equal((await app.inject({ url: '/api/bees' })).statusCode, 200, 'yet the first requests are not shed')
})
