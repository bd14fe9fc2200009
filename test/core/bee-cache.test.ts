import { test } from 'tap'
import { BeeCache, type LoadedBee } from '../../src/core/bee-cache.js'
import type { RegisteredBee } from '../../src/core/registry.js'
import { backends } from '../databases.js'
import { build } from '../helper.js'
import { signatureIsValid, startFakeBee } from '../fake-bee.js'
import { beeBody, createPublisher, publish } from '../publishing-helper.js'

const bee = (id: string) => ({ record: { id } }) as unknown as RegisteredBee

/** A loader that answers when told to, counting its reads. */
function slowLoader () {
  const pending: Array<(bee: LoadedBee | null) => void> = []
  const reads: string[] = []
  return {
    reads,
    answer: (found: LoadedBee | null) => pending.shift()?.(found),
    load: async (id: string) => {
      reads.push(id)
      return await new Promise<LoadedBee | null>((resolve) => pending.push(resolve))
    }
  }
}

test('a miss reads once for all who ask at once; a hit answers without a promise', async (t) => {
  const loader = slowLoader()
  const cache = new BeeCache(10, loader.load)
  const first = cache.get('a')
  const second = cache.get('a')
  t.ok(first instanceof Promise)
  t.equal(second, first, 'the second caller shares the first one\'s read')
  loader.answer(bee('a'))
  t.equal((await first)?.record.id, 'a')
  t.same(loader.reads, ['a'], 'one read')
  t.equal(cache.get('a'), await first, 'loaded: the Bee itself, no promise')
})

test('a Bee changed while it is read is not kept: the next use reads it again', async (t) => {
  const loader = slowLoader()
  const cache = new BeeCache(10, loader.load)
  const reading = cache.get('a')
  cache.evict('a')
  loader.answer(bee('a'))
  t.equal((await reading)?.record.id, 'a', 'the caller that asked before the change gets what was read')
  const again = cache.get('a')
  t.ok(again instanceof Promise, 'but it was not kept')
  loader.answer(bee('a'))
  await again
  t.same(loader.reads, ['a', 'a'])
})

test('no such Bee is not remembered; a Bee that cannot be served is, until it changes', async (t) => {
  const loader = slowLoader()
  const cache = new BeeCache(10, loader.load)
  const absent = cache.get('gone')
  loader.answer(null)
  t.equal(await absent, undefined)
  const unservable = cache.get('broken')
  loader.answer(false)
  t.equal(await unservable, undefined)
  t.equal(cache.get('broken'), undefined, 'remembered: answered at once, no read')
  t.ok(cache.get('gone') instanceof Promise, 'an absent id is read again (it may be published meanwhile)')
  loader.answer(null)
  cache.evict('broken')
  t.ok(cache.get('broken') instanceof Promise, 'changed: read again')
  loader.answer(bee('broken'))
  t.same(loader.reads, ['gone', 'broken', 'gone', 'broken'])
})

for (const backend of backends) {
  test(`with room for 2 Bees, 5 published Bees answer the same when evicted and read again (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const fake = await startFakeBee()
    t.teardown(fake.close)
    const app = await build(t, { env: { DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1', CATALOG_CACHE_SIZE: '2' } })
    const publisher = await createPublisher(app)
    const ids = ['cache-a', 'cache-b', 'cache-c', 'cache-d', 'cache-e']
    const secrets = new Map<string, string>()
    for (const id of ids) secrets.set(id, (await publish(app, publisher.headers, beeBody(id, fake.url, { name: `Cached ${id}` }))).signingSecret)

    const round = async () => {
      const answers: unknown[] = []
      for (const id of ids) {
        const call = await app.inject({ method: 'POST', url: `/api/bees/${id}/execute`, payload: { text: id } })
        const sent = fake.calls.at(-1)!
        const { health: _health, ...detail } = (await app.inject(`/api/bees/${id}`)).json<Record<string, unknown>>()
        const markdown = (await app.inject(`/api/bees/${id}.md`)).body
        answers.push({
          status: call.statusCode,
          result: call.json<{ result: unknown }>().result,
          signedWithItsSecret: signatureIsValid(secrets.get(id)!, sent.headers, sent.body),
          detail,
          markdown
        })
      }
      return answers
    }
    const first = await round()
    t.match(first, ids.map((id) => ({ status: 200, result: { shout: id.toUpperCase() }, signedWithItsSecret: true, detail: { id, name: `Cached ${id}` } })))
    t.same(await round(), first, 'evicted and read again: the same answers, each signed with its own secret')
    const listed = (await app.inject('/api/bees?colony=loud')).json<{ bees: Array<{ id: string }> }>().bees.map((b) => b.id)
    t.same(listed, ids, 'discovery lists every Bee, loaded or not')
  })
}
