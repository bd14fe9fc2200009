import pino from 'pino'
import { test } from 'tap'
import type { CatalogChanges, CatalogRepository } from '../../../src/core/ledger/catalog/catalog-repository.js'
import { CatalogSync } from '../../../src/core/publishing/catalog-sync.js'
import type { RemoteBeeProxy } from '../../../src/core/publishing/proxy.js'
import { Registry } from '../../../src/core/registry.js'
import { build } from '../../helper.js'
import { postgresBackend, postgresSkip, runSql, sqliteBackend } from '../../databases.js'
import { startFakeBee } from '../../fake-bee.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { within } from '../../within.js'

type App = Awaited<ReturnType<typeof build>>

/** Two instances on one database (with a fake upstream for their Bees), and a publisher made on the first. */
async function twoInstances (t: Parameters<typeof build>[0], databaseUrl: string, syncMs: string) {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const env = { DATABASE_URL: databaseUrl, EGRESS_ALLOWLIST: '127.0.0.1', CATALOG_SYNC_MS: syncMs }
  const one = await build(t, { env })
  const two = await build(t, { env })
  return { fake, one, two, publisher: await createPublisher(one) }
}

/** The status of a call to the Bee: what its execution path (the registry's cache, not discovery) serves. */
const callOn = async (app: App, id: string) => (await app.inject({ method: 'POST', url: `/api/bees/${id}/execute`, payload: { text: 'hi' } })).statusCode

const nameOn = async (app: App, id: string) => {
  const response = await app.inject(`/api/bees/${id}`)
  return response.statusCode === 200 ? response.json<{ name: string }>().name : null
}

test('PostgreSQL: a publish, a change and a removal on one instance are served by another at once (NOTIFY)', { skip: postgresSkip }, async (t) => {
  const backend = await postgresBackend()
  t.teardown(backend.drop)
  // A poll this slow cannot be what carries the changes within a second: the notification does.
  const { fake, one, two, publisher } = await twoInstances(t, backend.url, '60000')

  await publish(one, publisher.headers, beeBody('traveller', fake.url))
  t.not(await within(1000, async () => await nameOn(two, 'traveller') === 'Shouter traveller'), null, 'published on one, served by the other')

  const patched = await one.inject({ method: 'PATCH', url: '/api/bees/traveller', headers: publisher.headers, payload: { name: 'Renamed traveller' } })
  t.equal(patched.statusCode, 200)
  t.not(await within(1000, async () => await nameOn(two, 'traveller') === 'Renamed traveller'), null, 'changed on one, served changed by the other')
  const call = await two.inject({ method: 'POST', url: '/api/bees/traveller/execute', payload: { text: 'hi' } })
  t.equal(call.statusCode, 200, 'and the other calls it, its secret opened on first use')

  // The other has it loaded now: a change evicts it there.
  const paused = await one.inject({ method: 'PATCH', url: '/api/bees/traveller', headers: publisher.headers, payload: { status: 'inactive' } })
  t.equal(paused.statusCode, 200)
  t.not(await within(1000, async () => await callOn(two, 'traveller') === 409), null, 'made inactive on one, refused by the other, which had it loaded')
  await one.inject({ method: 'PATCH', url: '/api/bees/traveller', headers: publisher.headers, payload: { status: 'active' } })
  t.not(await within(1000, async () => await callOn(two, 'traveller') === 200), null, 'and active again')

  t.equal((await one.inject({ method: 'DELETE', url: '/api/bees/traveller', headers: publisher.headers })).statusCode, 204)
  t.not(await within(1000, async () => await nameOn(two, 'traveller') === null), null, 'removed on one, gone from the other')
  t.equal(await callOn(two, 'traveller'), 404, 'and no longer called there')
})

test('PostgreSQL: a change whose notification is lost is served by the poll', { skip: postgresSkip }, async (t) => {
  const backend = await postgresBackend()
  t.teardown(backend.drop)
  const { fake, one, two, publisher } = await twoInstances(t, backend.url, '200')
  await publish(one, publisher.headers, beeBody('quiet', fake.url))
  t.not(await within(1000, async () => await nameOn(two, 'quiet') !== null), null)
  t.equal(await callOn(two, 'quiet'), 200, 'the other has it loaded')

  // The change committed as the store commits one (next version, stamped on the row), without its NOTIFY.
  await runSql(backend, [
    'UPDATE catalog_version SET version = version + 1 WHERE id = 1',
    `UPDATE published_bees SET name = 'Quietly renamed', version = version + 1,
       change_seq = (SELECT version FROM catalog_version WHERE id = 1) WHERE id = 'quiet'`
  ])
  // A poll every 200 ms: a window of 3 s holds it under a loaded CI run's delays too (1 s missed once).
  t.not(await within(3000, async () => await nameOn(two, 'quiet') === 'Quietly renamed'), null, 'the poll finds what no notification announced')
  await runSql(backend, [
    'UPDATE catalog_version SET version = version + 1 WHERE id = 1',
    `UPDATE published_bees SET status = 'inactive', version = version + 1,
       change_seq = (SELECT version FROM catalog_version WHERE id = 1) WHERE id = 'quiet'`
  ])
  t.not(await within(3000, async () => await callOn(two, 'quiet') === 409), null, 'and evicts the loaded Bee: the change is what its calls see')

  // The listener's connection dropped (a restart, a network cut): the poll serves, and listens again.
  await runSql(backend, ["SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'apiary catalog listener %' AND pid <> pg_backend_pid()"])
  t.equal((await one.inject({ method: 'DELETE', url: '/api/bees/quiet', headers: publisher.headers })).statusCode, 204)
  t.not(await within(1000, async () => await nameOn(two, 'quiet') === null), null, 'removal propagates with the listener gone')
  t.equal(await callOn(two, 'quiet'), 404, 'and evicts it')
})

test('PostgreSQL: a listener whose connection the server ends listens again by itself, and changes travel by notification again', { skip: postgresSkip }, async (t) => {
  const backend = await postgresBackend()
  t.teardown(backend.drop)
  // A poll this slow cannot be what carries the changes: only a listener that came back can.
  const { fake, one, two, publisher } = await twoInstances(t, backend.url, '60000')
  await publish(one, publisher.headers, beeBody('phoenix', fake.url))
  t.not(await within(1000, async () => await nameOn(two, 'phoenix') !== null), null)
  // This test's listeners only (their name carries the schema): other tests share the server.
  const schema = /search_path=(\S+)/.exec(new URL(backend.url).searchParams.get('options') ?? '')?.[1] ?? ''
  const listeners = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'apiary catalog listener ${schema}'`
  const [{ n: before }] = await runSql(backend, [listeners]) as [{ n: number }]
  t.equal(before, 2, 'one listener per instance')
  await runSql(backend, [`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'apiary catalog listener ${schema}'`])
  const back = await within(3000, async () => (await runSql(backend, [listeners]) as [{ n: number }])[0].n === 2)
  t.not(back, null, `both listen again (${back} ms)`)
  const patched = await one.inject({ method: 'PATCH', url: '/api/bees/phoenix', headers: publisher.headers, payload: { name: 'Risen phoenix' } })
  t.equal(patched.statusCode, 200)
  t.not(await within(1000, async () => await nameOn(two, 'phoenix') === 'Risen phoenix'), null, 'and a change reaches the other by its notification')
})

test('a listener that cannot connect tries again by itself, further apart each time, then catches up on what it missed', async (t) => {
  const { state, store, commit } = fakeCatalog()
  const attempts: number[] = []
  const started = Date.now()
  let refuse = 4
  let listening: () => void = () => {}
  const listened = new Promise<void>((resolve) => { listening = resolve })
  store.watch = async (onChange) => {
    attempts.push(Date.now() - started)
    if (refuse-- > 0) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })
    state.notify = onChange
    listening()
    return async () => {}
  }
  const registry = new Registry()
  const sync = new CatalogSync({ registry, store, proxy: {} as RemoteBeeProxy, log: pino({ level: 'silent' }) })
  t.teardown(() => sync.close())
  // The timers of the retries do not keep a process alive: the test's own does, while it waits.
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive) })
  await sync.refresh()
  commit('missed')
  await sync.listen()
  await listened
  const gaps = attempts.slice(1).map((at, i) => at - (attempts[i] ?? 0))
  t.equal(attempts.length, 5, 'four refusals, then listening')
  t.ok(gaps.every((gap, i) => i === 0 || gap >= (gaps[i - 1] ?? 0) * 1.5), `further apart each time (${gaps.join(', ')} ms)`)
  t.not(await within(1000, async () => registry.version === state.version), null, 'and the change made meanwhile is read')
})

test('SQLite: instances on one file see each other\'s removals by the poll', async (t) => {
  const backend = sqliteBackend()
  t.teardown(backend.drop)
  const { fake, one, two, publisher } = await twoInstances(t, backend.url, '100')
  await publish(one, publisher.headers, beeBody('brief', fake.url))
  t.not(await within(1000, async () => await nameOn(two, 'brief') !== null), null)
  t.equal((await one.inject({ method: 'DELETE', url: '/api/bees/brief', headers: publisher.headers })).statusCode, 204)
  t.not(await within(1000, async () => await nameOn(two, 'brief') === null), null, 'removed on one, gone from the other')
  await publish(one, publisher.headers, beeBody('brief', fake.url, { name: 'Brief again' }))
  t.not(await within(1000, async () => await nameOn(two, 'brief') === 'Brief again'), null, 'and its id published again comes back')
})

/**
 * A catalog whose changes the test makes by hand, counting the reads a sync makes; `notify` plays the database's
 * notification of a committed change.
 */
function fakeCatalog () {
  const state = { version: 1, changed: new Map<string, number>(), reads: 0, notify: (_version: number | null) => {} }
  const store = {
    version: async () => state.version,
    builtinStates: async () => [],
    changesSince: async (after: number) => {
      state.reads++
      return { version: state.version, changed: [...state.changed].filter(([, at]) => at > after).map(([id]) => id), removed: [], states: [] }
    },
    catalogBee: async () => null,
    watch: async (onChange: (version: number | null) => void) => {
      state.notify = onChange
      return async () => {}
    }
  } as unknown as CatalogRepository
  /** A change committed on some instance: the next version, stamped on `id`. */
  const commit = (id: string) => {
    state.version++
    state.changed.set(id, state.version)
    return state.version
  }
  return { state, store, commit }
}

test('a change of this instance\'s own is applied without a read when it is the next version, and read when another came between', async (t) => {
  const { state, store, commit } = fakeCatalog()
  const registry = new Registry()
  const sync = new CatalogSync({ registry, store, proxy: {} as RemoteBeeProxy, log: pino({ level: 'silent' }) })
  await sync.listen()
  await sync.refresh()
  const reads = state.reads

  const own = commit('mine')
  await sync.refresh({ version: own, ids: ['mine'] })
  t.equal(state.reads, reads, 'the next version: applied, unread')
  t.equal(registry.version, own, 'and the registry is at it (listings cached before are not served)')
  state.notify(own)
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(state.reads, reads, 'its notification finds it seen')

  const theirs = commit('theirs')
  const mine = commit('mine-again')
  await sync.refresh({ version: mine, ids: ['mine-again'] })
  t.equal(state.reads, reads + 1, 'another instance\'s change came between: read')
  t.equal(registry.version, mine)
  state.notify(theirs)
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(state.reads, reads + 1, 'a notification of a version read already reads nothing')
  state.notify(commit('later'))
  await new Promise((resolve) => setImmediate(resolve))
  await sync.refresh()
  t.equal(registry.version, state.version, 'a notification of a version not seen is read')
  await sync.close()
})

test('a sync that read before a change of this instance\'s own was applied does not take the registry back', async (t) => {
  const { state, store, commit } = fakeCatalog()
  const registry = new Registry()
  const sync = new CatalogSync({ registry, store, proxy: {} as RemoteBeeProxy, log: pino({ level: 'silent' }) })
  await sync.refresh()
  // A read under way answers with what it saw before the change below.
  let answer: (value: CatalogChanges) => void = () => {}
  const changesSince = store.changesSince
  store.changesSince = async () => await new Promise<CatalogChanges>((resolve) => { answer = resolve })
  const before = state.version
  const reading = sync.refresh()
  const own = commit('mine')
  await sync.refresh({ version: own, ids: ['mine'] })
  answer({ version: before, changed: [], removed: [], states: [] })
  await reading
  t.equal(registry.version, own, 'still at the change applied')
  store.changesSince = changesSince
})

test('a listen that comes while the listener\'s connection is still opening opens no second one, and close closes it', async (t) => {
  const { store } = fakeCatalog()
  let opened = 0
  let closed = 0
  let connected: () => void = () => {}
  store.watch = async () => {
    opened++
    await new Promise<void>((resolve) => { connected = resolve })
    return async () => { closed++ }
  }
  const sync = new CatalogSync({ registry: new Registry(), store, proxy: {} as RemoteBeeProxy, log: pino({ level: 'silent' }) })
  // The first listen, then a poll's, both while the connection takes longer than the poll.
  const first = sync.listen()
  const second = sync.listen()
  connected()
  await Promise.all([first, second])
  t.equal(opened, 1, 'one connection')
  await sync.listen()
  t.equal(opened, 1, 'and none more once it is open')
  await sync.close()
  t.equal(closed, 1, 'closed with the sync')

  const closing = new CatalogSync({ registry: new Registry(), store, proxy: {} as RemoteBeeProxy, log: pino({ level: 'silent' }) })
  const opening = closing.listen()
  const closedBefore = closed
  const done = closing.close()
  connected()
  await Promise.all([opening, done])
  t.equal(closed, closedBefore + 1, 'a connection that opens during the close is closed before the close resolves')
})
