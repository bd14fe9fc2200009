import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { seedCatalog, seedText } from '../../../bench/catalog-seed.js'
import { backends } from '../../databases.js'
import { startFakeBee } from '../../fake-bee.js'
import { SECRETS_KEY, balanceOf, build, createWallet, execute } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'

/** Issue 25: nothing that worked with 10 Bees changes behaviour with 10,000. */
const LARGE = 10_000
const HARBOR = ['anchor', 'buoy', 'dredger', 'ferry', 'lighthouse', 'mooring', 'pilotage', 'quay', 'slipway', 'wharf'] as const
const PAID = 'harbor-wharf'
const PRICE = 0.25
/** Words no seeded Bee has (bench/catalog-seed.ts), each naming one harbor Bee best. */
const QUERIES: Array<[string, string]> = [['lighthouse', 'harbor-lighthouse'], ['ferry timetable', 'harbor-ferry'], ['mooring berths', 'harbor-mooring']]
const JSON_RPC = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }

type Record_ = Record<string, unknown>
/** A Bee's record without its health figures, which the calls in between move. */
const withoutHealth = ({ health: _health, ...record }: Record_) => record

const harborBee = (word: string, url: string) => beeBody(`harbor-${word}`, url, {
  name: `Harbor ${word}`,
  description: word === 'ferry'
    ? 'Ferry timetable: the next crossings from this quay.'
    : word === 'mooring' ? 'Free mooring berths for visiting boats.' : `Answers questions about the harbor's ${word}.`,
  colony: 'harbor',
  ...(`harbor-${word}` === PAID ? { pricing: { type: 'pay-per-use', costPerCall: PRICE } } : {})
})

/** What a reader sees, with no side effect: records, the colony's listing, ranked search, the documents. */
async function readings (app: FastifyInstance) {
  const json = async (url: string) => (await app.inject(url)).json<Record_>()
  const details = await Promise.all(HARBOR.map(async (word) => withoutHealth(await json(`/api/bees/harbor-${word}`))))
  const colony = (await json('/api/bees?colony=harbor')).bees as Record_[]
  const searches = await Promise.all(QUERIES.map(async ([q]) =>
    ((await json(`/api/bees?q=${encodeURIComponent(q)}`)).bees as Record_[]).map((bee) => bee.id)))
  return {
    details,
    colony: colony.map(withoutHealth),
    searches,
    serviceDocument: (await app.inject('/openapi/openapi.json')).body,
    beeDocument: (await app.inject('/api/bees/harbor-ferry/openapi.json')).body
  }
}

/** Every call a client makes of the harbor Bees: each one run (more than the cache holds), the paid one charged, one over MCP. */
async function calls (app: FastifyInstance) {
  const results = []
  for (const word of HARBOR) {
    if (`harbor-${word}` === PAID) continue
    const response = await execute(app, `harbor-${word}`, { text: word })
    results.push([response.statusCode, response.json<Record_>().result])
  }
  const wallet = await createWallet(app, 1)
  const paid = await execute(app, PAID, { text: 'pay' }, wallet.token)
  const mcp = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: JSON_RPC,
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'harbor-ferry', arguments: { text: 'sail' } } }
  })
  const found = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: JSON_RPC,
    payload: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'find_bees', arguments: { query: 'lighthouse' } } }
  })
  return {
    results,
    paid: [paid.statusCode, paid.json<Record_>().result, 1 - await balanceOf(app, wallet.id)],
    mcp: [mcp.statusCode, mcp.json<{ result: { structuredContent: Record_ } }>().result.structuredContent],
    found: (found.json<{ result: { structuredContent: { bees: Record_[] } } }>().result.structuredContent.bees[0] ?? {}).id
  }
}

/** Every id discovery lists, page by page through nextCursor. */
async function everyId (app: FastifyInstance): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const page: { bees: Array<{ id: string }>, nextCursor: string | null } =
      (await app.inject(`/api/bees?limit=500${cursor === null ? '' : `&cursor=${cursor}`}`)).json()
    ids.push(...page.bees.map((bee) => bee.id))
    cursor = page.nextCursor
  } while (cursor !== null)
  return ids
}

async function until (check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < ms;) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return await check()
}

for (const backend of backends) {
  test(`${backend.name}: what works with 10 Bees works the same with ${LARGE.toLocaleString('en')}`, { skip: backend.skip }, async (t) => {
    const store = await backend.open()
    t.teardown(store.drop)
    const fake = await startFakeBee()
    t.teardown(fake.close)
    // A cache smaller than the Bees called: every call below evicts and reloads.
    const app = await build(t, { env: { DATABASE_URL: store.url, EGRESS_ALLOWLIST: '127.0.0.1', CATALOG_SYNC_MS: '100', CATALOG_CACHE_SIZE: '4' } })
    const harbor = await createPublisher(app, 'Harbor')
    for (const word of HARBOR) await publish(app, harbor.headers, harborBee(word, fake.url))

    const small = { readings: await readings(app), calls: await calls(app) }
    t.equal((await everyId(app)).length, HARBOR.length + 3, 'ten published Bees and the three built-ins')
    t.same(small.readings.searches.map((ids) => ids[0]), QUERIES.map(([, best]) => best), 'each query finds its Bee first')
    t.same(small.calls.paid, [200, { shout: 'PAY', length: 3 }, PRICE], 'the paid Bee answers and charges its price')
    t.same(small.calls.mcp, [200, { shout: 'SAIL', length: 4 }], 'a Bee runs over MCP')
    t.equal(small.calls.found, 'harbor-lighthouse', 'MCP find_bees finds it too')

    const seeder = await createPublisher(app, 'Seeder')
    await seedCatalog(store.url, SECRETS_KEY, { ownerId: seeder.id, endpoint: fake.url, count: LARGE - HARBOR.length })
    const seeded = seedText(LARGE - HARBOR.length - 1).id
    t.ok(await until(async () => (await app.inject(`/api/bees/${seeded}`)).statusCode === 200), 'the seeded catalog is served')

    const large = await readings(app)
    t.same(large.details, small.readings.details, 'every record the same')
    t.same(large.colony, small.readings.colony, 'the colony\'s listing the same')
    t.same(large.searches.map((ids) => ids[0]), QUERIES.map(([, best]) => best), 'each query still finds its Bee first')
    t.same(large.searches.map((ids) => [...ids].sort()), small.readings.searches.map((ids) => [...ids].sort()), 'and nothing else: no seeded Bee has these words')
    t.equal(large.serviceDocument, small.readings.serviceDocument, 'the OpenAPI document is byte for byte the same')
    t.equal(large.beeDocument, small.readings.beeDocument, 'so is a Bee\'s own')
    t.same(await calls(app), small.calls, 'every call answers and charges as before')

    const ids = await everyId(app)
    t.equal(ids.length, LARGE + 3, 'discovery pages through every Bee')
    t.equal(new Set(ids).size, ids.length, 'each once')
    t.same(ids, [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 'in id order')
    const call = await execute(app, seeded, { text: 'deep' })
    t.same([call.statusCode, call.json<Record_>().result], [200, { shout: 'DEEP', length: 4 }], 'a seeded Bee runs on its first call')

    const removed = await app.inject({ method: 'DELETE', url: '/api/bees/harbor-buoy', headers: harbor.headers })
    t.equal(removed.statusCode, 204)
    t.equal((await app.inject('/api/bees/harbor-buoy')).statusCode, 404, 'a removal is served at once')
    t.equal((await execute(app, 'harbor-buoy', { text: 'x' })).statusCode, 404, 'and no longer runs')
    const listed = (await app.inject('/api/bees?colony=harbor')).json<{ bees: Record_[] }>().bees.map((bee) => bee.id)
    t.same(listed, small.readings.colony.map((bee) => bee.id).filter((id) => id !== 'harbor-buoy'), 'nor is listed')
  })
}
