import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { RESET_HEADER, WRITE_INSIDE_STEP, WRITE_STEP } from '../../plugins/spans.js'
import type { SpanReport } from '../../src/core/spans.js'
import { build, createWallet } from '../helper.js'

test('a bench build (BENCH_SPANS_FILE) writes each step\'s time over the requests it served when it closes', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-spans-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = join(dir, 'spans.json')
  const app = await build(t, { env: { BENCH_SPANS_FILE: file } })
  t.equal((await app.inject({ url: '/health', headers: { [RESET_HEADER]: '1' } })).statusCode, 200, 'the warm-up is forgotten')
  t.equal((await app.inject({ url: '/api/bees' })).statusCode, 200)
  const wallet = await createWallet(app, 1)
  const paid = await app.inject({ method: 'POST', url: '/api/bees/sentiment-analyzer/execute', payload: { text: 'Fine.' }, headers: { 'x-registry-wallet-token': wallet.token } })
  t.equal(paid.statusCode, 200)
  const refused = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: 7 } })
  t.match(refused.json(), { code: 'VALIDATION_FAILED', message: /text/ }, 'a timed validator still reports what it refused')
  await app.close()

  const report = JSON.parse(readFileSync(file, 'utf8')) as SpanReport
  t.equal(report.requests, 4, 'the four requests after the reset')
  t.ok(report.requestMs > 0)
  const steps = Object.keys(report.steps)
  for (const step of ['onRequest security-headers', 'onSend security-headers', 'onRequest rate-limit', 'parse body application/json', 'validate body', 'validate headers', 'route handler', 'execute.hold', 'execute.run', 'ledger holds.capture']) {
    t.ok(steps.includes(step), `${step} is timed`)
  }
  t.equal(report.steps['execute.run']?.count, 1, 'each step as often as it ran')
  // Issuing a wallet sends its answer in the handler; discovery and execute return theirs for Fastify to send.
  t.ok((report.steps[WRITE_INSIDE_STEP]?.count ?? 0) > 0, 'an answer written inside the step that sent it is counted there')
  t.ok((report.steps[WRITE_STEP]?.count ?? 0) > 0, 'an answer written after every timed step is counted on its own')
})

test('without BENCH_SPANS_FILE nothing is wrapped', async (t) => {
  const app = await build(t)
  t.notOk(app.hasPlugin('spans'))
})
