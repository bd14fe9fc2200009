import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { ADMIN_TOKEN, build } from '../../helper.js'
import { startFakeBee } from '../../fake-bee.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'

test('discovery filters, searches and pages with cursors', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const acme = await createPublisher(app, 'Acme')
  const rival = await createPublisher(app, 'Rival')
  await publish(app, acme.headers, beeBody('alpha-translate', fake.url, { category: 'language', description: 'Translates French.' }))
  await publish(app, acme.headers, beeBody('beta-paid', fake.url, { pricing: { type: 'pay-per-use', costPerCall: 0.5 } }))
  await publish(app, rival.headers, beeBody('gamma-rival', fake.url, { colony: 'rivals' }))
  const ids = async (query: string) => (await app.inject(`/api/bees${query}`)).json().bees.map((bee: { id: string }) => bee.id)

  t.same(await ids(''), ['alpha-translate', 'beta-paid', 'gamma-rival', 'sentiment-analyzer', 'text-summarizer', 'weather-sensor'], 'bare: all active, in id order')
  t.same(await ids('?category=language'), ['alpha-translate'])
  t.same(await ids('?colony=core'), ['sentiment-analyzer', 'text-summarizer', 'weather-sensor'])
  t.same(await ids(`?ownerId=${rival.id}`), ['gamma-rival'])
  t.same(await ids('?pricing=pay-per-use'), ['beta-paid', 'sentiment-analyzer', 'weather-sensor'])
  t.same(await ids('?q=FRENCH'), ['alpha-translate'], 'q searches descriptions, case-insensitively')
  t.same(await ids('?q=summar'), ['text-summarizer'], 'and ids and names')
  t.same(await ids('?category=language&colony=core'), [], 'filters combine')
  t.equal((await app.inject('/api/bees?pricing=gratis')).statusCode, 400)

  const seen: string[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const page: { bees: Array<{ id: string }>, nextCursor: string | null } =
      (await app.inject(`/api/bees?limit=4${cursor === null ? '' : `&cursor=${cursor}`}`)).json()
    seen.push(...page.bees.map((bee) => bee.id))
    cursor = page.nextCursor
    pages++
  } while (cursor !== null)
  t.equal(pages, 2)
  t.same(seen, await ids(''), 'pages add up to the whole list, nothing twice')
  t.equal((await app.inject('/api/bees?cursor=!!!')).json().code, 'INVALID_CURSOR')
})

test('discovery answers carry a strong ETag; If-None-Match gets 304 until the registry changes', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const first = await app.inject('/api/bees')
  const etag = first.headers.etag as string
  t.match(etag, /^"[A-Za-z0-9_-]+"$/, 'strong (no W/)')
  t.match(first.headers['cache-control'], /max-age=\d+/)
  const again = await app.inject({ url: '/api/bees', headers: { 'if-none-match': etag } })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  t.equal((await app.inject({ url: '/api/bees?category=data', headers: { 'if-none-match': etag } })).statusCode, 200, 'another answer, another ETag')

  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('newcomer', fake.url))
  const changed = await app.inject({ url: '/api/bees', headers: { 'if-none-match': etag } })
  t.equal(changed.statusCode, 200, 'a change invalidates the ETag')
  t.not(changed.headers.etag, etag)
  t.ok(changed.json().bees.some((bee: { id: string }) => bee.id === 'newcomer'))
})

test('a change on one instance is visible on another sharing the database within about a second', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const dir = mkdtempSync(join(tmpdir(), 'apiary-sync-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const env = { DATABASE_URL: join(dir, 'shared.db'), EGRESS_ALLOWLIST: '127.0.0.1', CATALOG_SYNC_MS: '200' }
  const one = await build(t, { env })
  const two = await build(t, { env })
  const publisher = await createPublisher(one)
  await publish(one, publisher.headers, beeBody('traveller', fake.url))
  const visible = async () => (await two.inject('/api/bees/traveller')).statusCode === 200
  const started = Date.now()
  while (!await visible() && Date.now() - started < 3000) await new Promise((resolve) => setTimeout(resolve, 50))
  t.ok(await visible(), `published on one, served by the other after ${Date.now() - started} ms`)
  t.ok(Date.now() - started < 1500)
  t.equal((await two.inject({ method: 'POST', url: '/api/bees/traveller/execute', payload: { text: 'hop' } })).json().result.shout, 'HOP')

  await one.inject({ method: 'DELETE', url: '/api/bees/traveller', headers: publisher.headers })
  const gone = Date.now()
  while (await visible() && Date.now() - gone < 3000) await new Promise((resolve) => setTimeout(resolve, 50))
  t.notOk(await visible(), 'and removal too')
})

test('the endpoint is checked again at call time, at the address actually connected to', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const dir = mkdtempSync(join(tmpdir(), 'apiary-egress-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const database = join(dir, 'shared.db')
  // Published where 127.0.0.1 was allowed; executed where it is not (as if its DNS answer had changed).
  const permissive = await build(t, { env: { DATABASE_URL: database, EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(permissive)
  await publish(permissive, publisher.headers, beeBody('moved', fake.url))
  const strict = await build(t, { env: { DATABASE_URL: database } })
  const response = await strict.inject({ method: 'POST', url: '/api/bees/moved/execute', payload: { text: 'hi' } })
  t.equal(response.statusCode, 502)
  t.equal(response.json().code, 'BEE_ENDPOINT_FORBIDDEN')
  t.equal(fake.calls.length, 0, 'nothing was sent')
})

test('a Bee\'s detail carries an ETag that changes when the Bee changes', async (t) => {
  const app = await build(t)
  const first = await app.inject('/api/bees/text-summarizer')
  const etag = first.headers.etag as string
  t.match(etag, /^"[A-Za-z0-9_-]+"$/)
  t.equal((await app.inject({ url: '/api/bees/text-summarizer', headers: { 'if-none-match': etag } })).statusCode, 304)
  t.not((await app.inject('/api/bees/weather-sensor')).headers.etag, etag, 'each Bee its own')
  await app.inject({
    method: 'PATCH', url: '/api/bees/text-summarizer', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { status: 'inactive' }
  })
  const changed = await app.inject({ url: '/api/bees/text-summarizer', headers: { 'if-none-match': etag } })
  t.equal(changed.statusCode, 200)
  t.equal(changed.json().status, 'inactive')
})
