import { test } from 'tap'
import { build } from '../helper.js'
import { backends } from '../databases.js'
import { startFakeBee } from '../fake-bee.js'
import { beeBody, createPublisher, publish } from '../publishing-helper.js'

for (const backend of backends) {
  test(`search finds Bees by their words in any order, best match first (${backend.name})`, { skip: backend.skip }, async (t) => {
    const fake = await startFakeBee()
    t.teardown(fake.close)
    const database = await backend.open()
    t.teardown(database.drop)
    const app = await build(t, { env: { DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1' } })
    const publisher = await createPublisher(app)
    await publish(app, publisher.headers, beeBody('glacier-pollen', fake.url, { name: 'Glacier pollen counter', description: 'Counts pollen grains on alpine glaciers.', category: 'data' }))
    await publish(app, publisher.headers, beeBody('pollen-forecast', fake.url, { name: 'Pollen forecast', description: 'Tomorrow\'s pollen levels near a glacier or a city.', category: 'data' }))
    await publish(app, publisher.headers, beeBody('city-noise', fake.url, { name: 'City noise meter', description: 'Decibels by street.', category: 'data' }))
    const ids = async (query: string) => (await app.inject(`/api/bees?${query}`)).json<{ bees: Array<{ id: string }> }>().bees.map((bee) => bee.id)

    t.same(await ids('q=pollen glacier'), ['glacier-pollen', 'pollen-forecast'], 'every word, in any order; the one named by them first')
    t.same(await ids('q=Glacier%20POLLEN'), ['glacier-pollen', 'pollen-forecast'], 'any case')
    t.same(await ids('q=pollen glacier&sort=id'), ['glacier-pollen', 'pollen-forecast'], 'the same matches in id order when asked')
    t.same(await ids('q=counting glaciers'), ['glacier-pollen'], 'another form of the words')
    t.same(await ids('q=summarizes%20text'), ['text-summarizer'], 'built-in Bees are searched too (the example in docs/catalog.md)')
    t.same((await ids('q=pollen glacier noise')).sort(), ['city-noise', 'glacier-pollen', 'pollen-forecast'], 'when no Bee has every word, those with any')
    t.same(await ids('q=zebra'), [], 'a word no Bee has matches nothing')
    t.same(await ids('q=pollen&limit=1'), ['glacier-pollen'])
    const first = (await app.inject('/api/bees?q=pollen&limit=1')).json<{ nextCursor: string }>()
    t.same(await ids(`q=pollen&limit=1&cursor=${first.nextCursor}`), ['pollen-forecast'], 'ranked pages follow on')
    t.equal((await app.inject('/api/bees?q=%22unbalanced (quote -')).statusCode, 200, 'search syntax in the words is not an error')

    const changed = await app.inject({ method: 'PATCH', url: '/api/bees/city-noise', headers: publisher.headers, payload: { description: 'Decibels near a glacier, by the pollen season.' } })
    t.equal(changed.statusCode, 200)
    t.same((await ids('q=pollen glacier')).sort(), ['city-noise', 'glacier-pollen', 'pollen-forecast'], 'a change is searched at once')
    t.equal((await app.inject({ method: 'DELETE', url: '/api/bees/glacier-pollen', headers: publisher.headers })).statusCode, 204)
    const remaining = await ids('q=pollen glacier')
    t.same([...remaining].sort(), ['city-noise', 'pollen-forecast'], 'a removal too')

    const found = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'find_bees', arguments: { query: 'glacier pollen' } } }
    })
    const bees = found.json<{ result: { structuredContent: { bees: Array<{ id: string, relevance: number }> } } }>().result.structuredContent.bees
    t.same(bees.map((bee) => bee.id), remaining, 'find_bees is the same search, in the same order')
    t.ok(bees.every((bee) => bee.relevance > 0))
  })
}
