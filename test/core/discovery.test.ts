import { test } from 'tap'
import { backends, runSql } from '../databases.js'
import { build } from '../helper.js'
import { startFakeBee } from '../fake-bee.js'
import { beeBody, createPublisher, publish } from '../publishing-helper.js'

interface Listed { id: string, category: string, colony: string, ownerId: string | null, pricing: { type: string } }
type Page = { bees: Listed[], nextCursor: string | null }

for (const backend of backends) {
  test(`discovery filters, pages and tags answers from the database, the built-ins merged in id order (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const fake = await startFakeBee()
    t.teardown(fake.close)
    const app = await build(t, { env: { DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1', CATALOG_CACHE_SIZE: '1' } })
    const acme = await createPublisher(app, 'Acme')
    const other = await createPublisher(app, 'Other')
    // Ids on both sides of the built-ins' (sentiment-analyzer, text-summarizer, weather-sensor) in id order.
    await publish(app, acme.headers, beeBody('alpha', fake.url, { category: 'data' }))
    await publish(app, acme.headers, beeBody('sigma-2', fake.url, { colony: 'quiet' }))
    await publish(app, other.headers, beeBody('tango', fake.url, { pricing: { type: 'pay-per-use', costPerCall: 0.01 } }))
    await publish(app, other.headers, beeBody('zulu', fake.url, { category: 'data', colony: 'quiet' }))
    await publish(app, acme.headers, beeBody('paused', fake.url))
    t.equal((await app.inject({ method: 'PATCH', url: '/api/bees/paused', headers: acme.headers, payload: { status: 'inactive' } })).statusCode, 200)

    const get = async (query: string) => (await app.inject(`/api/bees${query}`)).json<Page>()
    const all = (await get('?limit=500')).bees
    t.same(all.map((bee) => bee.id), ['alpha', 'sentiment-analyzer', 'sigma-2', 'tango', 'text-summarizer', 'weather-sensor', 'zulu'],
      'the active Bees, built-in and published, in id order; an inactive one is left out')

    const walked: string[] = []
    let cursor: string | null = null
    do {
      const page: Page = await get(`?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)
      t.ok(page.bees.length <= 2)
      walked.push(...page.bees.map((bee) => bee.id))
      cursor = page.nextCursor
    } while (cursor !== null)
    t.same(walked, all.map((bee) => bee.id), 'a walk two at a time lists each Bee once, in the same order')

    const filters: Array<[string, (bee: Listed) => boolean]> = [
      ['category=data', (bee) => bee.category === 'data'],
      ['colony=quiet', (bee) => bee.colony === 'quiet'],
      [`ownerId=${other.id}`, (bee) => bee.ownerId === other.id],
      ['pricing=pay-per-use', (bee) => bee.pricing.type === 'pay-per-use'],
      ['pricing=free&colony=loud', (bee) => bee.pricing.type === 'free' && bee.colony === 'loud']
    ]
    for (const [query, keep] of filters) {
      const expected = all.filter(keep)
      t.same((await get(`?${query}`)).bees, expected, `${query}: the same records as filtering the whole list`)
      const first = await get(`?${query}&limit=1`)
      t.same(first.bees, expected.slice(0, 1))
      if (expected.length > 1) t.same((await get(`?${query}&limit=1&cursor=${first.nextCursor}`)).bees, expected.slice(1, 2), `${query}: its second page`)
    }
    t.same((await get('?sort=reliability&limit=500')).bees, all, 'without runs, reliability ranks in id order')
    const ranked = await get('?sort=reliability&limit=4')
    t.same([...ranked.bees, ...(await get(`?sort=reliability&limit=4&cursor=${ranked.nextCursor}`)).bees], all, 'ranked pages join up')
    t.same((await get('?q=shouts&colony=quiet')).bees.map((bee) => bee.id).sort(), ['sigma-2', 'zulu'], 'a search, filtered')

    const before = await app.inject('/api/bees')
    const etag = before.headers.etag as string
    t.equal((await app.inject({ url: '/api/bees', headers: { 'if-none-match': etag } })).statusCode, 304, 'unchanged: 304')
    await app.inject({ method: 'PATCH', url: '/api/bees/zulu', headers: other.headers, payload: { name: 'Zulu renamed' } })
    const after = await app.inject({ url: '/api/bees', headers: { 'if-none-match': etag } })
    t.equal(after.statusCode, 200, 'a change: a new answer')
    t.not(after.headers.etag, etag)
  })

  test(`a discovery page with a stored row that cannot be read answers without it (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const fake = await startFakeBee()
    t.teardown(fake.close)
    const app = await build(t, { env: { DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1' } })
    const acme = await createPublisher(app, 'Acme')
    for (const id of ['alpha', 'broken', 'bravo', 'zulu']) await publish(app, acme.headers, beeBody(id, fake.url))
    // Damaged by hand, as a change of the catalog, so the instance forgets the Bee it had loaded.
    await runSql(database, [
      'UPDATE catalog_version SET version = version + 1',
      "UPDATE published_bees SET input_schema = 'not json', change_seq = (SELECT version FROM catalog_version) WHERE id = 'broken'"
    ])
    await app.catalog.refresh()

    const get = async (query: string) => {
      const response = await app.inject(`/api/bees${query}`)
      t.equal(response.statusCode, 200, `${query}: answered`)
      return response.json<Page>()
    }
    const readable = ['alpha', 'bravo', 'sentiment-analyzer', 'text-summarizer', 'weather-sensor', 'zulu']
    t.same((await get('?limit=500')).bees.map((bee) => bee.id), readable, 'every other Bee, in id order')
    const walked: string[] = []
    let cursor: string | null = null
    do {
      const page: Page = await get(`?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`)
      walked.push(...page.bees.map((bee) => bee.id))
      cursor = page.nextCursor
    } while (cursor !== null)
    t.same(walked, readable, 'a walk one at a time steps over it')
    t.notOk((await get('?q=shouts')).bees.some((bee) => bee.id === 'broken'), 'a search that finds its text leaves it out')
    t.equal((await app.inject('/api/bees/broken')).statusCode, 404, 'its detail is not found')
  })
}
