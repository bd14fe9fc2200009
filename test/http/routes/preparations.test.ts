import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { postgresBackend, postgresSkip } from '../../databases.js'
import { startFakeSite, type FakeSite } from '../../fake-site.js'
import { adminHeaders, build } from '../../helper.js'
import { createPublisher } from '../../publishing-helper.js'

const env: Record<string, string> = { EGRESS_ALLOWLIST: '127.0.0.1', PREPARATION_PAGE_TIMEOUT_MS: '500', PREPARATION_PAGE_MAX_BYTES: '1048576', PREPARATION_POLL_MS: '50', PREPARER_EMAIL: 'preparer@apiary.example' }

const submission = (site: FakeSite, extra: Record<string, unknown> = {}) => ({
  name: 'Crumb website',
  websiteUrl: `${site.url}/`,
  businessName: 'Crumb & Co',
  description: 'A neighbourhood bakery in Springfield.',
  primaryServices: ['Wedding cakes', 'Bread subscriptions'],
  ...extra
})

interface Prepared { id: string, status: string, error: unknown, [field: string]: unknown }

async function settled (app: FastifyInstance, id: string, headers: { authorization: string }): Promise<Prepared> {
  for (let i = 0; i < 300; i++) {
    const record = (await app.inject({ url: `/api/preparations/${id}`, headers })).json<Prepared>()
    if (record.status !== 'queued' && record.status !== 'running') return record
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`preparation ${id} did not settle`)
}

async function setup (t: { teardown (fn: () => unknown): void }) {
  const site = await startFakeSite()
  t.teardown(site.close)
  const app = await build(t, { env })
  const owner = await createPublisher(app, 'Crumb')
  const other = await createPublisher(app, 'Other')
  return { site, app, owner, other }
}

test('submit, follow, read the files; the owner reviews; another publisher sees nothing', async (t) => {
  const { site, app, owner, other } = await setup(t)
  t.equal((await app.inject({ method: 'POST', url: '/api/preparations', payload: submission(site) })).statusCode, 401, 'a key is needed')

  const submitted = await app.inject({ method: 'POST', url: '/api/preparations', headers: owner.headers, payload: { ...submission(site), ownerId: 'someone-else' } })
  t.equal(submitted.statusCode, 202)
  const created = submitted.json<Prepared>()
  t.match(created, { status: 'queued', ownerId: owner.id, ownerEmail: owner.email, targetAudience: '', notes: '', outputFiles: null, progress: { stage: 'waiting' } })
  t.match(created.id, /^bee_/)

  const done = await settled(app, created.id, owner.headers)
  t.match(done, { status: 'completed', attempts: 1, error: null, progress: { stage: 'done', pagesFetched: 4 } })
  t.match(done.outputFiles, { completedBy: 'preparer@apiary.example', llmsTxt: /^# Crumb & Co\n/, semanticSummary: /^# Crumb & Co\n/ })
  t.match((done.outputFiles as { notes: string }).notes, /disallowed by robots\.txt/)

  const files = [['llms.txt', 'text/plain', 'llmsTxt'], ['schema.jsonld', 'application/ld+json', 'schemaOrgJsonLd'],
    ['agent-manifest.json', 'application/json', 'agentManifest'], ['summary.md', 'text/markdown', 'semanticSummary']] as const
  for (const [path, type, field] of files) {
    const url = `/api/preparations/${created.id}/files/${path}`
    const file = await app.inject({ url, headers: owner.headers })
    t.equal(file.statusCode, 200, path)
    t.match(file.headers['content-type'], type)
    t.equal(file.body, (done.outputFiles as { [key: string]: string })[field], `${path} is the record's ${field}`)
    t.equal(file.headers['cache-control'], 'private, no-cache', `${path}: the client may keep it and revalidate; no shared cache may`)
    const etag = String(file.headers.etag)
    t.equal((await app.inject({ url, headers: { ...owner.headers, 'if-none-match': etag } })).statusCode, 304, `${path}: 304 on its ETag`)
    t.equal((await app.inject({ url, headers: other.headers })).statusCode, 404, `${path}: another publisher gets 404`)
  }

  for (const [method, url] of [['GET', ''], ['PATCH', ''], ['POST', '/retry'], ['POST', '/cancel'], ['DELETE', '']] as const) {
    const response = await app.inject({ method, url: `/api/preparations/${created.id}${url}`, headers: other.headers, ...(method === 'PATCH' ? { payload: { name: 'mine' } } : {}) })
    t.equal(response.statusCode, 404, `${method} ${url || 'record'}: another publisher gets 404`)
    t.equal(response.json().code, 'PREPARATION_NOT_FOUND')
  }
  t.same((await app.inject({ url: '/api/preparations', headers: other.headers })).json(), { preparations: [], nextCursor: null })
  t.equal((await app.inject({ url: '/api/preparations', headers: adminHeaders })).json().preparations.length, 1, 'the admin sees everyone\'s')

  const review = await app.inject({
    method: 'PATCH', url: `/api/preparations/${created.id}`, headers: owner.headers, payload: { outputFiles: { llmsTxt: '# Crumb & Co\n\n> Reviewed.\n' } }
  })
  t.equal(review.statusCode, 200)
  t.match(review.json(), { status: 'completed', outputFiles: { completedBy: owner.email, llmsTxt: '# Crumb & Co\n\n> Reviewed.\n', semanticSummary: /Crumb/ } })
  const badJson = await app.inject({ method: 'PATCH', url: `/api/preparations/${created.id}`, headers: owner.headers, payload: { outputFiles: { schemaOrgJsonLd: 'not json' } } })
  t.match(badJson.json(), { code: 'OUTPUT_INVALID' })
  const mixed = await app.inject({ method: 'PATCH', url: `/api/preparations/${created.id}`, headers: owner.headers, payload: { name: 'x', outputFiles: { notes: 'x' } } })
  t.match(mixed.json(), { code: 'PATCH_MIXED' })

  t.match((await app.inject({ method: 'POST', url: `/api/preparations/${created.id}/cancel`, headers: owner.headers })).json(), { code: 'PREPARATION_STATE' })
  const removed = await app.inject({ method: 'DELETE', url: `/api/preparations/${created.id}`, headers: adminHeaders })
  t.equal(removed.statusCode, 204, 'the admin may delete anyone\'s')
  t.equal((await app.inject({ url: `/api/preparations/${created.id}`, headers: owner.headers })).statusCode, 404)
})

test('editing the inputs queues the job again; cancel and retry', async (t) => {
  const { site, app, owner } = await setup(t)
  const created = (await app.inject({ method: 'POST', url: '/api/preparations', headers: owner.headers, payload: submission(site) })).json<Prepared>()
  await settled(app, created.id, owner.headers)

  const edited = await app.inject({ method: 'PATCH', url: `/api/preparations/${created.id}`, headers: owner.headers, payload: { primaryServices: ['Catering'] } })
  t.match(edited.json(), { status: 'queued', primaryServices: ['Catering'], outputFiles: null, attempts: 0 })
  const again = await settled(app, created.id, owner.headers)
  t.match(again, { status: 'completed', outputFiles: { schemaOrgJsonLd: /"Catering"/ } })
  t.equal((await app.inject({ url: '/api/preparations?status=completed', headers: owner.headers })).json().preparations.length, 1)
  t.equal((await app.inject({ url: '/api/preparations?status=failed', headers: owner.headers })).json().preparations.length, 0)

  const retried = await app.inject({ method: 'POST', url: `/api/preparations/${created.id}/retry`, headers: owner.headers })
  t.match(retried.json(), { status: 'queued' })
  const canceled = await app.inject({ method: 'POST', url: `/api/preparations/${created.id}/cancel`, headers: owner.headers })
  // The worker may have claimed it in between: canceled either way.
  t.match(canceled.json(), { status: 'canceled' })
  t.equal((await settled(app, created.id, owner.headers)).status, 'canceled', 'a canceled job stays canceled')
  const review = await app.inject({ method: 'PATCH', url: `/api/preparations/${created.id}`, headers: owner.headers, payload: { outputFiles: { llmsTxt: '# Mine\n' } } })
  t.match(review.json(), { status: 'completed', outputFiles: { llmsTxt: '# Mine\n', schemaOrgJsonLd: '{}', agentManifest: '', completedBy: owner.email } },
    'a person may complete a record the job never finished')
  const manifest = await app.inject({ url: `/api/preparations/${created.id}/files/agent-manifest.json`, headers: owner.headers })
  t.match(manifest.json(), { code: 'AGENT_MANIFEST_EMPTY' })
})

test('bad submissions, paging, and a site that fails', async (t) => {
  const { site, app, owner } = await setup(t)
  const refused = await app.inject({ method: 'POST', url: '/api/preparations', headers: owner.headers, payload: submission(site, { websiteUrl: 'http://10.1.2.3/' }) })
  t.match(refused.json(), { code: 'WEBSITE_FORBIDDEN' })
  t.equal((await app.inject({ method: 'POST', url: '/api/preparations', headers: owner.headers, payload: submission(site, { websiteUrl: 'ftp://x' }) })).statusCode, 400)
  t.equal((await app.inject({ method: 'POST', url: '/api/preparations', headers: owner.headers, payload: submission(site, { primaryServices: [] }) })).statusCode, 400)
  t.match((await app.inject({ url: '/api/preparations?cursor=garbage!!', headers: owner.headers })).json(), { code: 'INVALID_CURSOR' })

  // Nothing listens there: robots.txt cannot be read, and a site that cannot be reached is retried, then fails.
  const unreachable = (await app.inject({
    method: 'POST', url: '/api/preparations', headers: adminHeaders, payload: submission(site, { websiteUrl: 'http://127.0.0.1:9/' })
  })).json<Prepared>()
  t.match(unreachable, { ownerId: 'admin', ownerEmail: 'preparer@apiary.example' })
  const made = [unreachable.id]
  for (let i = 0; i < 2; i++) made.push((await app.inject({ method: 'POST', url: '/api/preparations', headers: owner.headers, payload: submission(site) })).json<Prepared>().id)
  const first = (await app.inject({ url: '/api/preparations?limit=1', headers: owner.headers })).json()
  t.equal(first.preparations.length, 1)
  const second = (await app.inject({ url: `/api/preparations?limit=5&cursor=${first.nextCursor}`, headers: owner.headers })).json()
  t.equal(second.preparations.length, 1)
  t.equal(second.nextCursor, null)

  let record = unreachable
  for (let i = 0; i < 200 && record.error === null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    record = (await app.inject({ url: `/api/preparations/${unreachable.id}`, headers: adminHeaders })).json<Prepared>()
  }
  t.match(record, { status: 'queued', attempts: 1, error: { code: 'ROBOTS_UNAVAILABLE' } }, 'the error says why, and the job waits for its retry')
  t.match((await app.inject({ method: 'POST', url: `/api/preparations/${unreachable.id}/retry`, headers: adminHeaders })).json(),
    { code: 'PREPARATION_STATE' }, 'a queued job is not retried by hand')
})

test('on PostgreSQL the job goes through pg-boss and completes the same', { skip: postgresSkip }, async (t) => {
  const database = await postgresBackend()
  t.teardown(database.drop)
  const site = await startFakeSite()
  t.teardown(site.close)
  const app = await build(t, { env: { ...env, DATABASE_URL: database.url } })
  const owner = await createPublisher(app, 'Crumb')
  const created = (await app.inject({ method: 'POST', url: '/api/preparations', headers: owner.headers, payload: submission(site) })).json<Prepared>()
  t.match(await settled(app, created.id, owner.headers), { status: 'completed', attempts: 1, outputFiles: { llmsTxt: /^# Crumb & Co\n/ } })
})
