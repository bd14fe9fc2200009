import { test } from 'tap'
import { startFakeBee } from '../fake-bee.js'
import { adminHeaders } from '../helper.js'
import { sqliteBackend } from '../databases.js'
import { beeBody } from '../publishing-helper.js'
import { startServer } from '../server-process.js'
import { within } from '../within.js'

/** A lease of 3 s: the restarted server takes the dead run over soon after it starts. */
const env = { EGRESS_ALLOWLIST: '127.0.0.1', RUN_LEASE_SECONDS: '3', RUN_POLL_MS: '100' }

interface Entry { kind: string }

test('a server killed with SIGKILL in the middle of a run: the restarted one takes the run over, and it is charged once', async (t) => {
  const database = sqliteBackend()
  t.teardown(database.drop)
  const fake = await startFakeBee()
  t.teardown(fake.close)
  // The first call never answers: the server dies with it in flight.
  let firstCall = true
  fake.beforeAnswer = async () => {
    if (!firstCall) return
    firstCall = false
    await new Promise(() => {})
  }

  const first = await startServer({ DATABASE_URL: database.url, ...env })
  t.teardown(() => first.stop())
  const post = async (url: string, path: string, body: unknown, headers: Record<string, string>) =>
    await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  const publisher = await (await post(first.url, '/api/publishers', { email: 'slow@example.com', name: 'Slow' }, adminHeaders)).json() as { key: string }
  const published = await post(first.url, '/api/bees', beeBody('slow-shouter', fake.url, {
    pricing: { type: 'pay-per-use', costPerCall: 0.25 }, config: { executionMode: 'async' }
  }), { authorization: `Bearer ${publisher.key}` })
  t.equal(published.status, 201)
  const wallet = await (await post(first.url, '/api/wallets', { balance: 1 }, adminHeaders)).json() as { id: string, token: string }
  const paying = { 'x-registry-wallet-token': wallet.token }
  const started = await post(first.url, '/api/bees/slow-shouter/execute', { text: 'hi' }, { ...paying, prefer: 'respond-async' })
  t.equal(started.status, 202)
  const location = started.headers.get('location') as string
  t.not(await within(10_000, async () => fake.calls.length === 1), null, 'the upstream call is in flight')
  await first.stop('SIGKILL')

  const second = await startServer({ DATABASE_URL: database.url, ...env })
  t.teardown(() => second.stop())
  let run: { status: string, attempts?: number, honey: { result: unknown } | null } | undefined
  await within(30_000, async () => {
    run = await (await fetch(`${second.url}${location}`, { headers: paying })).json() as typeof run
    return run?.status === 'succeeded'
  })
  t.match(run, { status: 'succeeded', honey: { result: { shout: 'HI', length: 2 } } }, 'the run was taken over and finished')
  t.equal(fake.calls.length, 2, 'the upstream was called again, once')
  const journal = await (await fetch(`${second.url}/api/wallets/${wallet.id}/journal?limit=50`, { headers: adminHeaders })).json() as { entries: Entry[] }
  t.same(journal.entries.map((entry) => entry.kind).sort(), ['capture', 'deposit', 'hold'], 'one hold, captured once')
})
