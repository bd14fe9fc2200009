import { test } from 'tap'
import { openStore } from '../../src/core/ledger/open-store.js'
import { backends, issuedWallet, postgresSkip, postgresBackend } from '../databases.js'
import { startServer } from '../server-process.js'

const PRICE_MICROS = 1000
const pay = (url: string, token: string) => fetch(`${url}/api/bees/sentiment-analyzer/execute`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-registry-wallet-token': token },
  body: JSON.stringify({ text: 'Two instances, one ledger.' })
})

test('two instances on one PostgreSQL: a wallet funded for N calls serves exactly N of 2N', { skip: postgresSkip }, async (t) => {
  const database = await postgresBackend()
  t.teardown(database.drop)
  const store = await openStore(database.url)
  t.teardown(() => store.close())
  const n = 40
  const wallet = await issuedWallet(store, n * PRICE_MICROS, 'shared')

  const servers = await Promise.all([startServer({ DATABASE_URL: database.url }), startServer({ DATABASE_URL: database.url })])
  t.teardown(() => Promise.all(servers.map((server) => server.stop())))

  const responses = await Promise.all(Array.from({ length: 2 * n }, (_, i) => pay(servers[i % 2]?.url ?? '', wallet.token)))
  const statuses = responses.map((response) => response.status)
  t.equal(statuses.filter((status) => status === 200).length, n, 'exactly N answers are 200')
  t.equal(statuses.filter((status) => status === 402).length, n, 'the rest are 402')

  const audit = await store.journal.audit(wallet.id)
  t.equal(audit?.balanceMicros, 0, 'the balance ends at 0')
  t.equal(audit?.journalMicros, 0, 'the journal agrees')
  const items = await store.journal.recent(wallet.id, 200)
  t.equal(items.filter((entry) => entry.kind === 'capture').length, n)
})

for (const backend of backends) {
  test(`a server killed with SIGKILL mid-stream loses no paid answer (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const setup = await openStore(database.url)
    const wallet = await issuedWallet(setup, 10_000 * PRICE_MICROS, 'crash')
    await setup.close()

    const server = await startServer({ DATABASE_URL: database.url })
    const paidRequestIds: string[] = []
    let stop = false
    const worker = async () => {
      // eslint-disable-next-line no-unmodified-loop-condition -- set by the test body while the workers await
      while (!stop) {
        try {
          const response = await pay(server.url, wallet.token)
          if (response.status === 200) paidRequestIds.push(response.headers.get('x-request-id') ?? 'missing')
          await response.arrayBuffer()
        } catch {
          return // the server died under us: this call's answer never arrived
        }
      }
    }
    const workers = Array.from({ length: 8 }, worker)
    while (paidRequestIds.length < 50) await new Promise((resolve) => setTimeout(resolve, 10))
    await server.stop('SIGKILL')
    stop = true
    await Promise.all(workers)
    t.ok(paidRequestIds.length >= 50, `${paidRequestIds.length} paid answers arrived before the kill`)

    const restarted = await startServer({ DATABASE_URL: database.url })
    t.teardown(() => restarted.stop())
    t.equal((await pay(restarted.url, wallet.token)).status, 200, 'the restarted server serves the same wallet')

    const store = await openStore(database.url)
    t.teardown(() => store.close())
    const items = await store.journal.recent(wallet.id, 100_000)
    const journaled = new Set(items.filter((entry) => entry.kind === 'capture').map((entry) => entry.requestId))
    t.same(paidRequestIds.filter((id) => !journaled.has(id)), [], 'every 200 the client received has its capture row')
    const audit = await store.journal.audit(wallet.id)
    t.equal(audit?.balanceMicros, audit?.journalMicros, 'balance = deposits − holds + voids after the crash')
  })
}
