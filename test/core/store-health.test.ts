import { test, type Test } from 'tap'
import type { Logger } from '../../src/core/logger.js'
import { StoreHealth } from '../../src/core/store-health.js'

const sqliteFull = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
const terminated = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })

/** A StoreHealth whose database answers when `state.up`, and takes writes when `state.writable` too; its probes and log lines kept. */
function store (t: Test) {
  const state = { up: true, writable: true }
  const probes: boolean[] = []
  const lines: Array<{ msg: string, fields: Record<string, unknown> }> = []
  const keep = (fields: Record<string, unknown>, msg: string) => { lines.push({ msg, fields }) }
  const log = { fatal: keep, error: keep, warn: keep, info: keep, debug: keep, trace: keep } as unknown as Logger
  const health = new StoreHealth({
    log,
    probe: async (write) => {
      probes.push(write)
      if (!state.up) throw refused()
      if (write && !state.writable) throw sqliteFull()
    }
  })
  t.teardown(() => { health.close() })
  // The outage's probe timers do not keep a process alive: the test's own does, while it waits.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive) })
  const settle = async () => await new Promise((resolve) => setTimeout(resolve, 10))
  return { health, state, probes, lines, settle }
}

test('a failure that is not the database\'s is no refusal: it stays the 500 it was', async (t) => {
  const { health, probes } = store(t)
  t.equal(health.refusal(new Error('a bug')), null)
  t.equal(health.refusal(Object.assign(new Error('duplicate key'), { code: '23505' })), null)
  t.notOk(health.absorbed(new TypeError('x is undefined')))
  t.same(probes, [], 'and the database is not asked')
})

test('connections the server ended while it answers: 503s for the calls on them, one warning, no outage', async (t) => {
  const { health, lines, probes, settle } = store(t)
  const refusal = health.refusal(terminated())
  t.match(refusal, { statusCode: 503, code: 'STORE_UNAVAILABLE', retryAfterSeconds: 1, message: /Idempotency-Key/ })
  health.refusal(terminated())
  health.connectionLost(terminated())
  await settle()
  t.same(probes, [false], 'the database asked once')
  t.equal(health.fault, null)
  t.same(lines.map((line) => line.msg), ['ledger database failed, and answers again (a connection it closed is opened again as needed)'])
  t.match(lines[0]?.fields, { reason: 'terminating connection due to administrator command', refusedCalls: 2, connectionsLost: 1 })
})

test('a connection told ended just after the probe passed is the same event: no second line, no second probe', async (t) => {
  const { health, lines, probes, settle } = store(t)
  health.refusal(terminated())
  await settle()
  t.match(health.refusal(terminated()), { code: 'STORE_UNAVAILABLE' }, 'the late one still refused as the others')
  health.connectionLost(terminated())
  await settle()
  t.same(probes, [false], 'the database asked once')
  t.equal(lines.length, 1, 'one line')
  await new Promise((resolve) => setTimeout(resolve, 1100))
  health.refusal(terminated())
  await settle()
  t.same(probes, [false, false], 'a failure a second later is a new event: asked again')
  t.equal(lines.length, 2)
})

test('the database down: an outage with the probe\'s own error, the calls met before it counted, and its end once it answers', async (t) => {
  const { health, state, lines, settle } = store(t)
  state.up = false
  health.refusal(terminated())
  health.absorbed(terminated())
  await settle()
  t.equal(health.fault, 'STORE_UNAVAILABLE')
  t.match(lines, [{ msg: /^ledger database unavailable/, fields: { err: { code: 'ECONNREFUSED' } } }], 'the error now, not its first symptom')
  t.match(health.refusal(refused()), { code: 'STORE_UNAVAILABLE' })
  t.equal(await health.check(), 'STORE_UNAVAILABLE', 'a readiness check says so')
  state.up = true
  t.equal(await health.check(), null, 'and ends it as soon as the database answers')
  t.match(lines.at(-1), { msg: 'ledger database back', fields: { refusedCalls: 2, failures: 2 } })
  t.equal(health.fault, null)
})

test('a full disk: STORE_FULL, asked with a write, over only once a write works', async (t) => {
  const { health, state, probes, lines, settle } = store(t)
  state.writable = false
  t.match(health.refusal(sqliteFull()), { statusCode: 503, code: 'STORE_FULL', message: /disk is full/ })
  await settle()
  t.equal(health.fault, 'STORE_FULL')
  t.equal(await health.check(), 'STORE_FULL', 'reads work; the check writes')
  t.ok(probes.every((write) => write), 'every probe a write')
  state.writable = true
  t.equal(await health.check(), null)
  t.match(lines.map((line) => line.msg), [/^ledger database unavailable/, 'ledger database back'])
})

test('background work\'s log: a line whose err is the database away is counted, any other is written', async (t) => {
  const written: string[] = []
  const { health } = store(t)
  const base = { error: (_: unknown, msg: string) => written.push(msg), warn: (_: unknown, msg: string) => written.push(msg) } as unknown as Logger
  const log = health.logger({ ...base, fatal: () => {}, info: () => {}, debug: () => {}, trace: () => {} } as unknown as Logger)
  log.warn({ err: refused() }, 'hold sweep failed')
  log.warn({ err: new Error('a bug') }, 'hold sweep failed')
  log.error({ beeId: 'x' }, 'something else')
  t.same(written, ['hold sweep failed', 'something else'])
})
