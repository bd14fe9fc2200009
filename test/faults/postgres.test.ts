import { randomBytes } from 'node:crypto'
import { test, type Test } from 'tap'
import { postgresBackend, postgresSkip } from '../databases.js'
import { checkCase, createWallet, faultSkip, isReady, moreAnswers, outageLines, recovery, sleep, startLoad, startService } from './harness.js'
import { postgresBooks, restartPostgres, startPostgres, stopPostgres, terminateConnections } from './machine.js'

const skip = faultSkip() || postgresSkip
const OPENING = 1000
const PRICE_MICROS = 1000

/** The service on a PostgreSQL schema of its own, its connections named so that a case can find them, and a funded wallet. */
async function onPostgres (t: Test) {
  const backend = await postgresBackend()
  t.teardown(backend.drop)
  const name = `apiary-fault-${randomBytes(4).toString('hex')}`
  const url = new URL(backend.url)
  url.searchParams.set('application_name', name)
  const service = await startService(t, { DATABASE_URL: url.toString() })
  const wallet = await createWallet(service.url, OPENING)
  return { name, url: url.toString(), service, wallet }
}

/** Service again within 2 s of `backAt`: /ready, and a call sent after it. */
async function recovered (t: Test, url: string, load: ReturnType<typeof startLoad>, backAt: number) {
  const { readyMs, servedMs } = await recovery(url, load.seen, backAt)
  t.comment(`recovery after the database's return: /ready in ${readyMs} ms, a call sent after it answered in ${servedMs} ms`)
  t.ok(readyMs !== null && readyMs <= 2000, `/ready answers within 2 s (${readyMs} ms)`)
  t.ok(servedMs !== null && servedMs <= 2000, `calls are served within 2 s (${servedMs} ms)`)
}

/** Recovery within 2 s of `backAt`, the money, and the log's lines. */
async function finish (t: Test, { url, service, wallet }: Awaited<ReturnType<typeof onPostgres>>, load: ReturnType<typeof startLoad>, backAt: number | null) {
  if (backAt !== null) await recovered(t, service.url, load, backAt)
  await moreAnswers(load.seen, 50)
  const seen = await load.stop()
  checkCase(t, service, seen, await postgresBooks(url, wallet.id, OPENING * 1e6), PRICE_MICROS)
  return outageLines(service.lines(), 'ledger database')
}

test('PostgreSQL restarted under load', { skip }, async (t) => {
  const setup = await onPostgres(t)
  const load = startLoad(t, setup.service.url, setup.wallet.token)
  await moreAnswers(load.seen, 200)
  const tookMs = await restartPostgres(t)
  t.comment(`pg_ctlcluster restart took ${tookMs} ms`)
  const { started, ended, stacks } = await finish(t, setup, load, Date.now())
  t.ok(started.length >= 1 && started.length <= 2, `the outage is said when it starts (${started.length})`)
  t.equal(ended.length, started.length, 'and when it ends, with the counts')
  t.comment(`outage lines: ${JSON.stringify(ended.map(({ downMs, refusedCalls, failures, connectionsLost }) => ({ downMs, refusedCalls, failures, connectionsLost })))}`)
  t.same(stacks.filter((line) => !started.includes(line)).map((line) => line.msg), [], 'no stack but the outage\'s first error')
})

test('PostgreSQL stopped for 10 s', { skip }, async (t) => {
  const setup = await onPostgres(t)
  const { service } = setup
  const load = startLoad(t, service.url, setup.wallet.token)
  await moreAnswers(load.seen, 200)
  await stopPostgres(t)
  await sleep(2000)
  const ready = await fetch(`${service.url}/ready`)
  t.same([ready.status, ready.headers.get('retry-after'), ((await ready.json()) as { code: string }).code], [503, '1', 'STORE_UNAVAILABLE'],
    '/ready is 503 and names the ledger database while it is down')
  t.equal((await fetch(`${service.url}/health`)).status, 200, '/health stays a liveness probe')
  const refusedBefore = load.seen.statuses.get('503') ?? 0
  await sleep(8000)
  t.ok((load.seen.statuses.get('503') ?? 0) > refusedBefore, 'calls meanwhile are refused with 503')
  t.notOk(await isReady(service.url))
  await startPostgres()
  const { started, ended, stacks } = await finish(t, setup, load, Date.now())
  t.equal(started.length, 1, 'one line when it went away')
  t.equal(ended.length, 1, 'one when it came back')
  t.ok(Number(ended[0]?.downMs) >= 10_000, `down for ${ended[0]?.downMs} ms, ${ended[0]?.refusedCalls} calls refused`)
  t.same(stacks.filter((line) => !started.includes(line)).map((line) => line.msg), [], 'no stack but the outage\'s first error')
})

test('pg_terminate_backend on every connection of the service, three times under load', { skip }, async (t) => {
  const setup = await onPostgres(t)
  const load = startLoad(t, setup.service.url, setup.wallet.token)
  await moreAnswers(load.seen, 200)
  for (let round = 0; round < 3; round++) {
    const ended = await terminateConnections(setup.name)
    const backAt = Date.now()
    t.ok(ended >= 3, `round ${round + 1}: ${ended} connections ended`)
    await recovered(t, setup.service.url, load, backAt)
    await moreAnswers(load.seen, 100)
  }
  const { stacks } = await finish(t, setup, load, null)
  t.same(stacks.map((line) => line.msg), [], 'no stack in the log: the database answered throughout')
})
