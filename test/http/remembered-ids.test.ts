import { test } from 'tap'
import { rememberedIds } from '../../src/http/remembered-ids.js'

test('an id found is remembered, asked once for concurrent callers; a hash that names nothing is asked again', async (t) => {
  const asked: string[] = []
  const known = new Map([['h1', 'wal_1']])
  const idOf = rememberedIds(async (hash) => {
    asked.push(hash)
    await new Promise((resolve) => setTimeout(resolve, 5))
    return known.get(hash) ?? null
  })
  t.equal(idOf.peek('h1'), undefined, 'nothing is known before the first lookup')
  t.same(await Promise.all([idOf('h1'), idOf('h1'), idOf('h1')]), ['wal_1', 'wal_1', 'wal_1'])
  t.equal(await idOf('h1'), 'wal_1')
  t.equal(idOf.peek('h1'), 'wal_1', 'then it answers at once')
  t.same(asked, ['h1'], 'one lookup served them all')

  t.equal(await idOf('h2'), null)
  t.equal(idOf.peek('h2'), undefined, 'a hash that named nothing is not remembered')
  known.set('h2', 'wal_2')
  t.equal(await idOf('h2'), 'wal_2', 'a key issued a moment ago counts at once')
  t.same(asked, ['h1', 'h2', 'h2'])
})

test('a failed lookup is not remembered and reaches the caller', async (t) => {
  let fail = true
  const idOf = rememberedIds(async () => {
    if (fail) throw new Error('ledger down')
    return 'wal_1'
  })
  await t.rejects(idOf('h1'), /ledger down/)
  fail = false
  t.equal(await idOf('h1'), 'wal_1')
})
