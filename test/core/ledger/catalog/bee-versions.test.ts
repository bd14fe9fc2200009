import { test } from 'tap'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import { backends, storedBee } from '../../../databases.js'
import { SECRETS_KEY } from '../../../helper.js'

for (const backend of backends) {
  test(`a change that replaces a Bee's version keeps the one it replaced, in its commit, on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())
    const { catalog } = store
    const at = new Date().toISOString()
    await catalog.createPublisher({ id: 'pub_1', email: 'a@example.com', name: 'A', createdAt: at, keyHash: 'h1' })
    const first = storedBee('versioned', 'pub_1', at, { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } })
    t.equal(await catalog.insertBee(first), true)
    t.match(await catalog.catalogBee('versioned'), { semver: '1.0.0' }, 'a Bee is stored with its version')
    t.same(await catalog.earlierVersions('versioned'), [], 'and has none before it')

    const { signingSecret: _, ...changed } = first
    const later = new Date(Date.parse(at) + 1000).toISOString()
    t.ok(await catalog.updateBee({ ...changed, semver: '2.0.0', endpoint: 'https://bees.example.com/v2', inputSchema: { type: 'object' }, version: 2, updatedAt: later }, '1.0.0'))
    t.same(await catalog.earlierVersions('versioned'), [{
      semver: '1.0.0', endpoint: first.endpoint, inputSchema: first.inputSchema, outputSchema: first.outputSchema, replacedAt: later
    }], 'the replaced version, as it was')
    t.match(await catalog.catalogBee('versioned'), { semver: '2.0.0', endpoint: 'https://bees.example.com/v2' }, 'the row holds the new one')

    t.ok(await catalog.updateBee({ ...changed, semver: '2.0.0', name: 'Renamed', version: 3, updatedAt: later }, '2.0.0'))
    t.equal((await catalog.earlierVersions('versioned')).length, 1, 'a change that keeps the version copies nothing')
    t.ok(await catalog.updateBee({ ...changed, semver: '2.1.0', version: 4, updatedAt: later }, '1.0.0'))
    t.same((await catalog.earlierVersions('versioned')).map((v) => v.semver), ['1.0.0'],
      'a change made from a version another change replaced meanwhile copies nothing again')
    t.ok(await catalog.updateBee({ ...changed, semver: '3.0.0', version: 5, updatedAt: later }, '2.1.0'))
    t.same((await catalog.earlierVersions('versioned')).map((v) => v.semver), ['2.1.0', '1.0.0'], 'the latest first')

    t.equal(await catalog.deleteBee('versioned'), true)
    t.same(await catalog.earlierVersions('versioned'), [], 'removed with the Bee')
    t.same(await catalog.earlierVersions('no such\u0000id'), [], 'an id no Bee can have is not looked up')
  })
}
