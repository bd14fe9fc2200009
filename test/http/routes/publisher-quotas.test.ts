import { test } from 'tap'
import { backends } from '../../databases.js'
import { build } from '../../helper.js'
import { startFakeBee } from '../../fake-bee.js'
import { beeBody, createPublisher } from '../../publishing-helper.js'

for (const backend of backends) {
  test(`${backend.name}: concurrent publishes cannot take a publisher past PUBLISHER_MAX_BEES`, { skip: backend.skip }, async (t) => {
    const db = await backend.open()
    t.teardown(db.drop)
    const fake = await startFakeBee()
    t.teardown(fake.close)
    const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', DATABASE_URL: db.url, PUBLISHER_MAX_BEES: '3' } })
    const acme = await createPublisher(app, 'Acme')
    const other = await createPublisher(app, 'Other')
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) =>
      app.inject({ method: 'POST', url: '/api/bees', headers: acme.headers, payload: beeBody(`bee-${i}`, fake.url) })))
    t.equal(answers.filter((answer) => answer.statusCode === 201).length, 3, 'exactly 3 published')
    const refused = answers.filter((answer) => answer.statusCode !== 201)
    t.equal(refused.length, 9)
    for (const answer of refused) t.match(answer.json(), { code: 'PUBLISHER_BEE_LIMIT', message: /PUBLISHER_MAX_BEES/ })
    const created = await app.inject({ method: 'POST', url: '/api/bees', headers: other.headers, payload: beeBody('other-bee', fake.url) })
    t.equal(created.statusCode, 201, 'the quota is per publisher')
  })
}

test('a Bee that would take too much of the OpenAPI document is refused, at publish and at change', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', PUBLISHER_MAX_OPENAPI_BYTES: '4096' } })
  const publisher = await createPublisher(app)
  const wide = {
    type: 'object',
    properties: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`field${i}`, { type: 'string', description: 'A field of a wide schema.' }]))
  }
  const refused = await app.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('wide', fake.url, { inputSchema: wide }) })
  t.equal(refused.statusCode, 413)
  t.match(refused.json(), { code: 'BEE_DOCUMENT_TOO_LARGE', message: /at most 4096 \(PUBLISHER_MAX_OPENAPI_BYTES\)/ })
  t.equal((await app.inject('/api/bees/wide')).statusCode, 404, 'nothing was stored')

  const published = await app.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('narrow', fake.url) })
  t.equal(published.statusCode, 201)
  const changed = await app.inject({ method: 'PATCH', url: '/api/bees/narrow', headers: publisher.headers, payload: { inputSchema: wide, version: '2.0.0' } })
  t.equal(changed.statusCode, 413)
  t.equal(changed.json().code, 'BEE_DOCUMENT_TOO_LARGE')
})
