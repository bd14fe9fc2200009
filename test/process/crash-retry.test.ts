import { setTimeout as sleep } from 'node:timers/promises'
import tap, { test } from 'tap'
import { openStore } from '../../src/core/ledger/open-store.js'
import { backends, issuedWallet } from '../databases.js'
import { startFakeBee } from '../fake-bee.js'
import { adminHeaders } from '../helper.js'
import { beeBody } from '../publishing-helper.js'
import { startServer } from '../server-process.js'

const PRICE_MICROS = 10_000
/**
 * A claim is abandoned after 3 s; a hold expires after 12 s, longer than a restart takes (about 6 s
 * here, with the TypeScript loader), so the retries find holds still pending; the sweeper looks every 200 ms.
 * The Bee's 2 s limit is far above its 20-80 ms, so a loaded machine does not time calls out.
 */
const shortTimes = {
  IDEMPOTENCY_LEASE_SECONDS: '3',
  HOLD_TIMEOUT_SECONDS: '12',
  HOLD_SWEEP_INTERVAL_MS: '200',
  WEATHER_TIMEOUT_MS: '500',
  REMOTE_BEE_TIMEOUT_MS: '2000',
  EGRESS_ALLOWLIST: '127.0.0.1'
}
const RETRY_DEADLINE_MS = 15_000

// Two backends, each with two server starts and a wait for HOLD_TIMEOUT_SECONDS: about 20 s apiece.
tap.setTimeout(150_000)

interface Entry { kind: string, amount: number, idempotencyKey: string | null, holdId: number | null, id: number, requestId: string | null }

for (const backend of backends) {
  test(`SIGKILL under paid load, then every lost answer retried with its key: charged at most once, nothing left held (${backend.name})`,
    { skip: backend.skip }, async (t) => {
      const database = await backend.open()
      t.teardown(database.drop)
      // A published Bee that takes a little while, so the kill finds calls between their hold and their answer.
      const fake = await startFakeBee()
      t.teardown(fake.close)
      fake.beforeAnswer = () => sleep(20 + Math.random() * 60)

      const setup = await openStore(database.url)
      const wallet = await issuedWallet(setup, 100_000 * PRICE_MICROS, 'crash')
      await setup.close()

      const env = { DATABASE_URL: database.url, ...shortTimes }
      const server = await startServer(env)
      const post = (url: string, path: string, body: unknown, headers: Record<string, string>) =>
        fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
      const publisher = await (await post(server.url, '/api/publishers', { email: 'crash@example.com', name: 'Crash' }, adminHeaders)).json() as { key: string }
      const published = await post(server.url, '/api/bees', beeBody('crash-shouter', fake.url, { pricing: { type: 'pay-per-use', costPerCall: 0.01 } }),
        { authorization: `Bearer ${publisher.key}` })
      t.equal(published.status, 201, 'a paid Bee is published')

      const call = (url: string, key: string) => post(url, '/api/bees/crash-shouter/execute', { text: key },
        { 'x-registry-wallet-token': wallet.token, 'idempotency-key': key })
      const answered = new Map<string, string>()
      /** Keys whose call failed with a documented, uncharged error (a Bee timeout on a loaded machine). */
      const refused = new Set<string>()
      const lost: string[] = []
      let next = 0
      let stop = false
      const worker = async () => {
        // eslint-disable-next-line no-unmodified-loop-condition -- set by the test body while the workers await
        while (!stop) {
          const key = `key-${next++}`
          try {
            const response = await call(server.url, key)
            const body = await response.text()
            if (response.status === 200) answered.set(key, body)
            else if (response.status === 502 || response.status === 504) refused.add(key)
            else t.fail(`${key}: ${response.status} ${body}`)
          } catch {
            lost.push(key) // the server died under this call: its answer never arrived
            return
          }
        }
      }
      const workers = Array.from({ length: 24 }, worker)
      while (answered.size < 100) await sleep(5)
      await server.stop('SIGKILL')
      stop = true
      await Promise.all(workers)
      t.ok(lost.length > 0, `${answered.size} answers arrived, ${lost.length} were lost in the kill`)

      const restarted = await startServer(env)
      t.teardown(() => restarted.stop())
      const retried = new Map<string, { status: number, replayed: boolean, body: string }>()
      const retry = (keys: string[]) => Promise.all(keys.map(async (key) => {
        const deadline = Date.now() + RETRY_DEADLINE_MS
        for (;;) {
          const response = await call(restarted.url, key)
          const body = await response.text()
          if (response.status !== 409 || Date.now() > deadline) {
            retried.set(key, { status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true', body })
            return
          }
          await sleep(200)
        }
      }))
      const view = async () => (await fetch(`${restarted.url}/api/wallets/${wallet.id}`, { headers: adminHeaders })).json() as Promise<{ balance: number, held: number }>
      const swept = async () => {
        const deadline = Date.now() + 20_000
        while ((await view()).held !== 0 && Date.now() < deadline) await sleep(100)
        return (await view()).held
      }
      // Half the lost calls are retried at once (they take over their claim and its pending hold), and a few that
      // had succeeded; the other half only once the sweeper has voided the holds nobody came back for.
      const early = lost.filter((_, i) => i % 2 === 0)
      const late = lost.filter((_, i) => i % 2 === 1)
      await retry([...early, ...[...answered.keys()].slice(0, 10)])
      t.equal(await swept(), 0, 'the sweeper voids the holds nobody came back for')
      await retry(late)
      for (const key of lost) t.equal(retried.get(key)?.status, 200, `lost ${key}: the retry answers`)
      for (const [key, body] of answered) {
        const again = retried.get(key)
        if (again !== undefined) t.ok(again.replayed && again.body === body, `answered ${key}: the retry is the stored answer`)
      }
      t.equal(await swept(), 0, 'no hold is left pending')

      const store = await openStore(database.url)
      t.teardown(() => store.close())
      const entries = await store.journal.recent(wallet.id, 100_000) as Entry[]
      const captures = new Map<string, number>()
      const netDebit = new Map<string, number>()
      for (const entry of entries) {
        const key = entry.idempotencyKey ?? '(none)'
        if (entry.kind === 'capture') captures.set(key, (captures.get(key) ?? 0) + 1)
        const sign = entry.kind === 'hold' || entry.kind === 'charge' ? 1 : entry.kind === 'void' || entry.kind === 'refund' ? -1 : 0
        netDebit.set(key, (netDebit.get(key) ?? 0) + sign * Math.round(entry.amount * 1e6))
      }
      const twice = [...captures].filter(([, n]) => n > 1).map(([key]) => key)
      t.same(twice, [], 'no key is captured twice')
      const wrongNet = [...netDebit]
        .filter(([key, micros]) => key !== '(none)' && micros !== (refused.has(key) ? 0 : PRICE_MICROS))
        .map(([key, micros]) => `${key}: ${micros}`)
      t.same(wrongNet, [], 'every key that was answered is charged exactly once, net; a refused one not at all')
      const answeredKeys = new Set([...answered.keys(), ...lost])
      t.equal(captures.size, answeredKeys.size, 'one capture per key answered')

      const lostKeys = new Set(lost)
      const ofLost = entries.filter((entry) => entry.idempotencyKey !== null && lostKeys.has(entry.idempotencyKey))
      const holdsOf = (kind: string) => new Set(ofLost.filter((entry) => entry.kind === kind).map((entry) => entry.holdId))
      const reusedHold = ofLost.filter((entry) => entry.kind === 'capture' && entry.requestId !== ofLost.find((hold) => hold.id === entry.holdId)?.requestId)
      t.comment(`lost answers: ${[...lost].filter((key) => retried.get(key)?.replayed).length} replayed (captured before the kill), ` +
        `${reusedHold.length} captured on the hold placed before the kill, ${holdsOf('void').size} holds voided by the sweeper`)

      const settled = new Set(entries.filter((entry) => entry.holdId !== null).map((entry) => entry.holdId))
      t.same(entries.filter((entry) => entry.kind === 'hold' && !settled.has(entry.id)).map((entry) => entry.id), [], 'every hold is settled')
      const sum = (kind: string) => entries.filter((entry) => entry.kind === kind).reduce((total, entry) => total + Math.round(entry.amount * 1e6), 0)
      const audit = await store.journal.audit(wallet.id)
      t.equal(audit?.balanceMicros, sum('deposit') - sum('capture'), 'balance = deposits − captures')
      t.equal(audit?.balanceMicros, audit?.journalMicros, 'the audit agrees')
    })
}
