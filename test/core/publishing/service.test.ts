import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import type { Caller } from '../../../src/core/principal.js'
import { CatalogSync } from '../../../src/core/publishing/catalog-sync.js'
import { EgressPolicy } from '../../../src/core/publishing/egress.js'
import { RemoteBeeProxy } from '../../../src/core/publishing/proxy.js'
import { type Publication, PublishingService } from '../../../src/core/publishing/service.js'
import { Registry } from '../../../src/core/registry.js'
import { backends } from '../../databases.js'
import { SECRETS_KEY } from '../../helper.js'
import { shoutInput, shoutOutput } from '../../publishing-helper.js'
import { SILENT } from '../preparations/preparation-fixture.js'
import { echoBee } from '../../echo-bee.js'

const operator: Caller = { principal: { kind: 'admin' }, log: SILENT }

/** A Bee on a fake upstream's address (127.0.0.1 is on the allow-list: nothing is called here). */
const bee = (id: string, extra: Partial<Publication> = {}): Publication => ({
  id,
  name: `Shouter ${id}`,
  description: 'Shouts the text back in capitals.',
  category: 'utility',
  endpoint: 'http://127.0.0.1:9/execute',
  inputSchema: shoutInput,
  outputSchema: shoutOutput,
  pricing: { type: 'free' },
  ...extra
})

const notFound = (id: string) => ({ statusCode: 404, code: 'BEE_NOT_FOUND', message: `No Bee has the id "${id}". GET /api/bees lists the Bees you can call.` })

for (const backend of backends) {
  test(`the publishing use cases on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const ledger = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => ledger.close())
    const registry = new Registry()
    registry.register(echoBee())
    const egress = new EgressPolicy(['127.0.0.1'])
    const proxy = new RemoteBeeProxy({ policy: egress, timeoutMs: 2000, maxResponseBytes: 1_000_000 })
    const sync = new CatalogSync({ registry, store: ledger.catalog, proxy, log: SILENT })
    t.teardown(async () => { await sync.close(); await proxy.close() })
    await sync.refresh()
    const service = new PublishingService({
      registry,
      store: ledger.catalog,
      egress,
      refresh: async (own) => await sync.refresh(own),
      currency: 'EUR',
      maxBeesPerPublisher: 2,
      maxDocumentBytes: 20_000,
      runMaxSeconds: 600
    })
    const publisher = async (id: string): Promise<Caller> => {
      const created = await ledger.catalog.createPublisher({ id, email: `${id}@example.com`, name: id, createdAt: new Date().toISOString(), keyHash: `hash_${id}` })
      return { principal: { kind: 'publisher', publisher: created }, log: SILENT }
    }
    const owner = await publisher('pub_owner')
    const other = await publisher('pub_other')

    await t.test('publish stores the Bee, answers with its signing secret, and the registry serves it at once', async (t) => {
      const published = await service.publish(owner, bee('shouter', { rateLimit: { callsPerMinute: 60 } }))
      t.match(published, {
        id: 'shouter',
        status: 'active',
        ownerEmail: 'pub_owner@example.com',
        upstreamEndpoint: 'http://127.0.0.1:9/execute',
        rateLimit: { callsPerMinute: 60 },
        pricing: { type: 'free', costPerCall: 0, currency: 'EUR' },
        config: { primaryServices: [] },
        colony: 'community'
      })
      t.match(published.signingSecret, /^bsk_/)
      t.match(await ledger.catalog.catalogBee('shouter'), { ownerId: 'pub_owner', version: 1 })
      t.equal((await registry.lookup('shouter'))?.record.name, 'Shouter shouter', 'served without waiting for a poll')
    })

    await t.test('publish refuses with the codes and messages of the door', async (t) => {
      await t.rejects(service.publish(operator, bee('by-operator')), {
        statusCode: 403, code: 'PUBLISHER_REQUIRED', message: 'Bees are published with a publisher key: issue one with POST /api/publishers.'
      }, 'the operator publishes nothing')
      await t.rejects(service.publish(owner, bee('echo')), { statusCode: 409, code: 'BEE_ID_RESERVED', message: '"echo" is a built-in Bee\'s id.' })
      await t.rejects(service.publish(other, bee('shouter')), { statusCode: 409, code: 'BEE_ID_TAKEN', message: 'A Bee with the id "shouter" exists already.' })
      await t.rejects(service.publish(other, bee('private', { endpoint: 'https://10.0.0.1/x' })), {
        statusCode: 400, code: 'ENDPOINT_FORBIDDEN', message: 'endpoint address 10.0.0.1 is loopback, private, link-local or reserved'
      })
      await t.rejects(service.publish(other, bee('priced', { pricing: { type: 'pay-per-use' } })), {
        statusCode: 400, code: 'INVALID_PRICE', message: 'A pay-per-use Bee needs a costPerCall above 0.'
      })
      await t.rejects(service.publish(other, bee('fractional', { pricing: { type: 'pay-per-use', costPerCall: 0.0000001 } })), { statusCode: 400, code: 'INVALID_AMOUNT' })
      await t.rejects(service.publish(other, bee('schemaless', { inputSchema: { type: 'string' } })), { statusCode: 400, code: 'INVALID_SCHEMA' })
      await t.rejects(service.publish(other, bee('wordy', { description: 'x'.repeat(30_000) })), { statusCode: 413, code: 'BEE_DOCUMENT_TOO_LARGE' })
      t.equal(await ledger.catalog.catalogBee('private'), null, 'nothing refused was stored')
    })

    await t.test('a publisher has at most PUBLISHER_MAX_BEES Bees', async (t) => {
      const full = await publisher('pub_full')
      await service.publish(full, bee('full-one'))
      await service.publish(full, bee('full-two'))
      await t.rejects(service.publish(full, bee('full-three')), {
        statusCode: 409,
        code: 'PUBLISHER_BEE_LIMIT',
        message: 'You have 2 Bees, as many as a publisher may have (PUBLISHER_MAX_BEES): remove one before publishing another.'
      })
      await service.retire(full, 'full-two')
      t.match(await service.publish(full, bee('full-three')), { id: 'full-three' }, 'room again once one is removed')
    })

    await t.test('update: the owner and the operator change a Bee; another publisher does not find it', async (t) => {
      t.match(await service.update(owner, 'shouter', { name: 'Loud', rateLimit: null }), { name: 'Loud', rateLimit: null })
      t.match(await ledger.catalog.catalogBee('shouter'), { name: 'Loud', version: 2, callsPerMinute: null })
      t.equal((await registry.lookup('shouter'))?.record.name, 'Loud', 'the registry serves the change')
      t.match(await service.update(operator, 'shouter', { category: 'fun' }), { name: 'Loud', category: 'fun' }, 'the operator manages anyone\'s Bee')
      await t.rejects(service.update(other, 'shouter', { name: 'Mine' }), notFound('shouter'), 'someone else\'s Bee is not found, not forbidden')
      await t.rejects(service.update(owner, 'no-such-bee', { name: 'X' }), notFound('no-such-bee'))
      await t.rejects(service.update(owner, 'shouter', { endpoint: 'https://169.254.169.254/x' }), { statusCode: 400, code: 'ENDPOINT_FORBIDDEN' })
      await t.rejects(service.update(owner, 'shouter', { pricing: { type: 'free', costPerCall: 1 } }), { statusCode: 400, code: 'INVALID_PRICE', message: 'A free Bee has costPerCall 0.' })
      t.match(await ledger.catalog.catalogBee('shouter'), { version: 3 }, 'a refused change writes nothing')
    })

    await t.test('update follows the status lifecycle: only the operator revives a deprecated Bee', async (t) => {
      t.match(await service.update(owner, 'shouter', { status: 'inactive', statusMessage: 'Maintenance.' }), { status: 'inactive', statusMessage: 'Maintenance.' })
      await t.rejects(service.update(owner, 'shouter', { status: 'deprecated' }), { statusCode: 400, code: 'STATUS_MESSAGE_REQUIRED' })
      await t.rejects(service.update(owner, 'shouter', { sunsetAt: '2030-01-01T00:00:00Z' }), { statusCode: 400, code: 'SUNSET_WITHOUT_DEPRECATION' })
      const sunsetAt = '2030-01-01T00:00:00Z'
      t.match(await service.update(owner, 'shouter', { status: 'deprecated', statusMessage: 'Use echo.', sunsetAt }), { status: 'deprecated', sunsetAt })
      await t.rejects(service.update(owner, 'shouter', { status: 'active' }), {
        statusCode: 403, code: 'BEE_DEPRECATED', message: 'A deprecated Bee can only be revived by the operator.'
      })
      t.match(await service.update(operator, 'shouter', { status: 'active' }), { status: 'active', statusMessage: null, sunsetAt: null })
    })

    await t.test('update of a built-in Bee: only the operator, and only its status', async (t) => {
      await t.rejects(service.update(owner, 'echo', { status: 'inactive' }), {
        statusCode: 403, code: 'BEE_RESERVED', message: 'echo is a built-in Bee: only the operator may change its status.'
      })
      await t.rejects(service.update(operator, 'echo', { status: 'inactive', name: 'Renamed' }), {
        statusCode: 403, code: 'BEE_RESERVED', message: 'echo is a built-in Bee: only its status can change, not name.'
      })
      const changed = await service.update(operator, 'echo', { status: 'inactive', statusMessage: 'Resting.' })
      t.match(changed, { id: 'echo', status: 'inactive', statusMessage: 'Resting.', upstreamEndpoint: null, ownerEmail: null, rateLimit: null })
      t.equal(registry.builtin('echo')?.record.status, 'inactive', 'the registry has it')
      await service.update(operator, 'echo', { status: 'active' })
    })

    await t.test('retire removes the owner\'s Bee; someone else\'s is not found, a built-in stays', async (t) => {
      await t.rejects(service.retire(other, 'shouter'), notFound('shouter'))
      await t.rejects(service.retire(operator, 'echo'), {
        statusCode: 403, code: 'BEE_RESERVED', message: 'echo is a built-in Bee and cannot be removed; set its status instead.'
      })
      await service.retire(owner, 'shouter')
      t.equal(await ledger.catalog.catalogBee('shouter'), null)
      t.equal(await registry.lookup('shouter'), undefined, 'no longer served')
      await t.rejects(service.update(owner, 'shouter', { name: 'Back' }), notFound('shouter'))
      await t.rejects(service.retire(owner, 'shouter'), notFound('shouter'))

      await service.publish(other, bee('theirs'))
      await service.retire(operator, 'theirs')
      t.equal(await ledger.catalog.catalogBee('theirs'), null, 'the operator retires anyone\'s Bee')
    })
  })
}
