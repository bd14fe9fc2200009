import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { PreparationService, type Submission } from '../../../src/core/preparations/service.js'
import type { Caller } from '../../../src/core/principal.js'
import { EgressPolicy } from '../../../src/core/publishing/egress.js'
import { backends } from '../../databases.js'
import { SILENT } from './preparation-fixture.js'

const operator: Caller = { principal: { kind: 'admin' }, log: SILENT }
const publisher = (id: string): Caller =>
  ({ principal: { kind: 'publisher', publisher: { id, email: `${id}@example.com`, name: id, createdAt: new Date().toISOString() } }, log: SILENT })

const submission = (extra: Partial<Submission> = {}): Submission => ({
  name: 'Crumb website',
  websiteUrl: 'https://crumb.example/',
  businessName: 'Crumb & Co',
  description: 'A neighbourhood bakery in Springfield.',
  primaryServices: ['Wedding cakes'],
  ...extra
})

const notFound = (id: string) => ({ statusCode: 404, code: 'PREPARATION_NOT_FOUND', message: `No preparation you manage has the id "${id}".` })

for (const backend of backends) {
  test(`the preparation use cases on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const ledger = await openStore(database.url)
    t.teardown(() => ledger.close())
    const store = ledger.preparations
    // The queue is told of every record queued; the worker that would take it is not under test here.
    const enqueued: string[] = []
    const service = new PreparationService({
      store,
      queue: { enqueue: async (id) => { enqueued.push(id) } },
      egress: new EgressPolicy([]),
      preparerEmail: 'preparer@apiary.example'
    })
    const owner = publisher('pub_owner')
    const other = publisher('pub_other')
    /** Moves a record as a worker's run would have left it. */
    const settle = async (id: string, status: 'completed' | 'failed', files: { agentManifest: string } | null = null) => {
      const outputFiles = files === null
        ? null
        : { schemaOrgJsonLd: '{}', notes: '', semanticSummary: '# Crumb\n', llmsTxt: '# Crumb\n', completedBy: 'preparer@apiary.example', completedAt: new Date().toISOString(), ...files }
      t.ok((await store.change(id, ['queued', 'running'], { status, outputFiles, updatedAt: new Date().toISOString() })).ok)
    }

    await t.test('submit records the site as the caller\'s and queues its job', async (t) => {
      const submitted = await service.submit(owner, submission())
      t.match(submitted, { id: /^bee_/, status: 'queued', ownerId: 'pub_owner', ownerEmail: 'pub_owner@example.com', targetAudience: '', notes: '' })
      t.match(submitted, { outputFiles: null, error: null, attempts: 0, progress: { stage: 'waiting' } }, 'nothing produced yet')
      t.same(await store.get(submitted.id), submitted, 'stored as answered')
      t.equal(enqueued.at(-1), submitted.id)
      t.match(await service.submit(operator, submission()), { ownerId: 'admin', ownerEmail: 'preparer@apiary.example' }, 'the operator\'s records are PREPARER_EMAIL\'s')
    })

    await t.test('submit refuses a website Apiary does not crawl', async (t) => {
      const before = enqueued.length
      await t.rejects(service.submit(owner, submission({ websiteUrl: 'http://127.0.0.1:8080/' })), {
        statusCode: 400, code: 'WEBSITE_FORBIDDEN', message: 'websiteUrl\'s address 127.0.0.1 is loopback, private or reserved: Apiary does not crawl it'
      })
      await t.rejects(service.submit(owner, submission({ websiteUrl: 'https://me:secret@crumb.example/' })), {
        statusCode: 400, code: 'WEBSITE_FORBIDDEN', message: 'websiteUrl must not carry credentials'
      })
      t.equal(enqueued.length, before, 'nothing queued')
    })

    await t.test('get and list: the owner and the operator see a record, another publisher does not', async (t) => {
      const { id } = await service.submit(owner, submission({ name: 'Listed' }))
      t.match(await service.get(owner, id), { id, name: 'Listed' })
      t.match(await service.get(operator, id), { id })
      await t.rejects(service.get(other, id), notFound(id), 'someone else\'s record is not found, not forbidden')
      await t.rejects(service.get(owner, 'bee_none'), notFound('bee_none'))

      const mine = await service.list(owner, { limit: 50 })
      t.ok(mine.items.length > 0 && mine.items.every((record) => record.ownerId === 'pub_owner'), 'a publisher lists its own')
      t.same((await service.list(other, { limit: 50 })).items, [], 'and nothing of anyone else\'s')
      t.ok((await service.list(operator, { limit: 50 })).items.some((record) => record.ownerId === 'admin'), 'the operator lists everyone\'s')
      const first = await service.list(operator, { limit: 1 })
      t.not(first.nextCursor, null)
      t.equal((await service.list(operator, { limit: 50, status: 'completed' })).items.length, 0, 'filtered by status')
      await t.rejects(service.list(owner, { limit: 50, cursor: 'not-a-cursor' }), { statusCode: 400, code: 'INVALID_CURSOR' })
    })

    await t.test('edit: new inputs queue the job again from scratch, whatever its state', async (t) => {
      const { id } = await service.submit(owner, submission())
      await settle(id, 'completed', { agentManifest: '' })
      const edited = await service.change(owner, id, { primaryServices: ['Bread'], notes: 'New menu.' })
      t.match(edited, { status: 'queued', primaryServices: ['Bread'], notes: 'New menu.', name: 'Crumb website', outputFiles: null, attempts: 0 })
      t.equal(enqueued.at(-1), id)
      await t.rejects(service.change(other, id, { name: 'Mine' }), notFound(id))
      await t.rejects(service.change(owner, id, { websiteUrl: 'http://10.1.2.3/' }), { statusCode: 400, code: 'WEBSITE_FORBIDDEN' })
      t.match(await service.change(operator, id, { name: 'By the operator' }), { name: 'By the operator', ownerId: 'pub_owner' })
    })

    await t.test('review: edited files complete the record, completed by the reviewer', async (t) => {
      const { id } = await service.submit(owner, submission())
      await t.rejects(service.change(owner, id, { outputFiles: { llmsTxt: '# Mine\n' } }), {
        statusCode: 409, code: 'PREPARATION_STATE', message: 'The preparation is queued; review applies to a preparation that is completed, failed, canceled.'
      }, 'not while a run could overwrite the files')
      await settle(id, 'failed')
      await t.rejects(service.change(owner, id, { name: 'X', outputFiles: { llmsTxt: '# Mine\n' } }), {
        statusCode: 400, code: 'PATCH_MIXED', message: 'Send either new inputs (which queue the job again) or outputFiles edits, not both.'
      })
      await t.rejects(service.change(other, id, { name: 'X', outputFiles: { llmsTxt: '# Mine\n' } }), notFound(id), 'ownership is checked first')
      await t.rejects(service.change(owner, id, { outputFiles: { schemaOrgJsonLd: 'not json' } }), {
        statusCode: 400, code: 'OUTPUT_INVALID', message: 'outputFiles.schemaOrgJsonLd must be serialized JSON.'
      })
      await t.rejects(service.change(owner, id, { outputFiles: { agentManifest: '[1]' } }), {
        statusCode: 400, code: 'OUTPUT_INVALID', message: 'outputFiles.agentManifest must hold a JSON object.'
      })
      const reviewed = await service.change(owner, id, { outputFiles: { llmsTxt: '# Mine\n', agentManifest: '' } })
      t.match(reviewed, { status: 'completed', error: null, outputFiles: { llmsTxt: '# Mine\n', schemaOrgJsonLd: '{}', agentManifest: '', completedBy: 'pub_owner@example.com' } })
      t.match(await service.change(operator, id, { outputFiles: { notes: 'Checked.' } }), {
        outputFiles: { notes: 'Checked.', llmsTxt: '# Mine\n', completedBy: 'preparer@apiary.example' }
      }, 'the operator reviews as PREPARER_EMAIL, on the files as they are')
    })

    await t.test('cancel and retry follow the state machine', async (t) => {
      const { id } = await service.submit(owner, submission())
      await t.rejects(service.retry(owner, id), {
        statusCode: 409, code: 'PREPARATION_STATE', message: 'The preparation is queued; retry applies to a preparation that is completed, failed, canceled.'
      })
      await t.rejects(service.cancel(other, id), notFound(id))
      const queuedBefore = enqueued.length
      t.match(await service.cancel(owner, id), { status: 'canceled' })
      t.equal(enqueued.length, queuedBefore, 'a cancel queues nothing')
      await t.rejects(service.cancel(owner, id), {
        statusCode: 409, code: 'PREPARATION_STATE', message: 'The preparation is canceled; cancel applies to a preparation that is queued, running.'
      })
      await t.rejects(service.retry(other, id), notFound(id))
      t.match(await service.retry(owner, id), { status: 'queued', attempts: 0, error: null, outputFiles: null })
      t.equal(enqueued.at(-1), id, 'a retry queues the job')
      t.match(await service.cancel(operator, id), { status: 'canceled' }, 'the operator cancels anyone\'s')
    })

    await t.test('file: a produced file, or why there is none', async (t) => {
      const { id } = await service.submit(owner, submission())
      await t.rejects(service.file(owner, id, 'llmsTxt'), {
        statusCode: 404, code: 'PREPARATION_FILE_NOT_READY', message: 'The preparation is queued: its files are not produced yet.'
      })
      await settle(id, 'completed', { agentManifest: '' })
      t.equal(await service.file(owner, id, 'llmsTxt'), '# Crumb\n')
      await t.rejects(service.file(owner, id, 'agentManifest'), { statusCode: 404, code: 'AGENT_MANIFEST_EMPTY' })
      await t.rejects(service.file(other, id, 'llmsTxt'), notFound(id))
    })

    await t.test('remove deletes the record whatever its state; someone else\'s is not found', async (t) => {
      const { id } = await service.submit(owner, submission())
      await t.rejects(service.remove(other, id), notFound(id))
      await service.remove(owner, id)
      t.equal(await store.get(id), null)
      await t.rejects(service.remove(owner, id), notFound(id))
      const theirs = await service.submit(other, submission())
      await service.remove(operator, theirs.id)
      t.equal(await store.get(theirs.id), null, 'the operator removes anyone\'s')
    })
  })
}
