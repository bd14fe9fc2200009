import { test, type Test } from 'tap'
import type { Logger } from '../../src/core/logger.js'
import { Outage } from '../../src/core/outage.js'

interface Line { level: string, fields: Record<string, unknown>, msg: string }

/**
 * A logger that keeps its lines, and resolves `next` with each new one (an event, not a sleep). The outage's timers
 * do not keep a process alive: the test's own timer does, while it waits.
 */
function recorder (t: Test) {
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive) })
  const lines: Line[] = []
  let waiting: Array<(line: Line) => void> = []
  const write = (level: string) => (fields: Record<string, unknown>, msg: string) => {
    const line = { level, fields, msg }
    lines.push(line)
    const resolve = waiting
    waiting = []
    for (const each of resolve) each(line)
  }
  const log = { fatal: write('fatal'), error: write('error'), warn: write('warn'), info: write('info'), debug: write('debug'), trace: write('trace') } as unknown as Logger
  const next = async (): Promise<Line> => await new Promise((resolve) => { waiting.push(resolve) })
  return { log, lines, next }
}

test('an outage is one line when it starts, with its error, however many failures follow, and one when it ends, with the counts', async (t) => {
  const { log, lines } = recorder(t)
  const outage = new Outage({ dependency: 'Redis', meanwhile: 'calls go on without limits', log })
  t.teardown(() => { outage.close() })
  const cause = new Error('connect ECONNREFUSED 127.0.0.1:6379')
  for (let i = 0; i < 1000; i++) outage.failed(cause, 'callsNotLimited')
  outage.failed(new Error('again'))
  t.ok(outage.down)
  t.equal(outage.reason, cause.message, 'the first failure is the reason')
  t.equal(lines.length, 1, 'one line for 1,001 failures')
  t.match(lines[0], { level: 'error', msg: 'Redis unavailable: calls go on without limits', fields: { dependency: 'Redis', err: cause, remindEverySeconds: 30 } })

  outage.recovered()
  t.notOk(outage.down)
  t.equal(lines.length, 2)
  t.match(lines[1], { level: 'warn', msg: 'Redis back', fields: { dependency: 'Redis', reason: cause.message, callsNotLimited: 1000, failures: 1 } })
  t.type(lines[1]?.fields.downMs, 'number')
  outage.recovered()
  t.equal(lines.length, 2, 'nothing more once it is over')

  outage.failed(new Error('the next one'))
  t.match(lines[2], { level: 'error', fields: { err: { message: 'the next one' } } }, 'the next outage starts afresh')
  outage.recovered()
  t.notOk('callsNotLimited' in (lines[3]?.fields ?? {}), 'its counts are its own')
})

test('while it lasts, a reminder with the counts at the interval stated in the first line', async (t) => {
  const { log, lines, next } = recorder(t)
  const outage = new Outage({ dependency: 'ledger database', meanwhile: '503', log, remindEveryMs: 50 })
  t.teardown(() => { outage.close() })
  outage.failed(new Error('gone'), 'refusedCalls')
  t.equal(lines[0]?.fields.remindEverySeconds, 0.05)
  outage.failed(new Error('gone'), 'refusedCalls')
  const reminder = await next()
  t.match(reminder, { level: 'warn', msg: 'ledger database still unavailable', fields: { reason: 'gone', refusedCalls: 2, downSeconds: 0 } })
  outage.recovered()
  const ended = lines.length
  await new Promise((resolve) => setTimeout(resolve, 120))
  t.equal(lines.length, ended, 'no reminder once it ended')
})

test('a probe looks for the dependency after 100 ms, then backs off to at most a second, and ends the outage when it answers', async (t) => {
  const { log, lines, next } = recorder(t)
  const tried: number[] = []
  let answers = false
  const started = Date.now()
  const outage = new Outage({
    dependency: 'ledger database',
    meanwhile: '503',
    log,
    probe: async () => {
      tried.push(Date.now() - started)
      if (!answers) throw new Error('still away')
    }
  })
  t.teardown(() => { outage.close() })
  outage.failed(new Error('gone'))
  // 100, 200, 400, 800, 1000 ms apart: five failed probes take 1.5 s; the sixth answers.
  while (tried.length < 5) await new Promise((resolve) => setTimeout(resolve, 50))
  const gaps = tried.map((at, i) => at - (tried[i - 1] ?? 0))
  t.ok(gaps[0]! >= 90 && gaps[0]! < 400, `the first after about 100 ms (${gaps[0]} ms)`)
  for (let i = 1; i < 4; i++) t.ok(gaps[i]! >= gaps[i - 1]! * 1.5, `then further apart (${gaps.join(', ')} ms)`)
  answers = true
  const back = await next()
  t.match(back, { msg: 'ledger database back' })
  t.equal(tried.length, 6)
  t.ok(tried[5]! - tried[4]! <= 1200, `never more than a second apart (${tried[5]! - tried[4]!} ms)`)
  t.notOk(outage.down)
  t.equal(lines.length, 2)
})
