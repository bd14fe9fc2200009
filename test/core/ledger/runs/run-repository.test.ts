import { test } from 'tap'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import type { NewRun } from '../../../../src/core/ledger/runs/run-repository.js'
import { later, now } from '../../../../src/core/ledger/timestamps.js'
import { newRunId } from '../../../../src/core/runs/run-ids.js'
import { backends } from '../../../databases.js'
import { SECRETS_KEY } from '../../../helper.js'

const run = (extra: Partial<NewRun> = {}): NewRun => ({
  id: newRunId(),
  beeId: 'slow-bee',
  ownerHash: 'owner-a',
  keyHash: null,
  input: { text: 'hi' },
  idempotencyKey: null,
  requestHash: null,
  holdId: null,
  requestId: 'req-1',
  maxRunSeconds: 60,
  createdAt: now(),
  expiresAt: later(600),
  ...extra
})

for (const backend of backends) {
  test(`runs on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const ledger = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => ledger.close())
    const { runs } = ledger

    await t.test('a run is stored queued; the same owner and idempotency key give back the first run', async (t) => {
      const first = await runs.insert(run({ idempotencyKey: 'k-1' }))
      t.match(first, { inserted: true, run: { status: 'queued', attempts: 0, input: { text: 'hi' }, startedAt: null } })
      const again = await runs.insert(run({ idempotencyKey: 'k-1' }))
      t.same(again, { inserted: false, run: first.run })
      const otherOwner = await runs.insert(run({ ownerHash: 'owner-b', idempotencyKey: 'k-1' }))
      t.equal(otherOwner.inserted, true, 'keys are scoped to their owner')
      t.same(await runs.byIdempotencyKey('owner-a', 'k-1'), first.run)
      t.equal(await runs.get('run_nope'), null)
    })

    await t.test('a worker claims the oldest due run, and only it may settle it; a cancel fences it out', async (t) => {
      const claimed = await runs.claim({ runToken: 'w1', now: now(), leaseUntil: later(30) })
      t.match(claimed, { status: 'running', attempts: 1, idempotencyKey: 'k-1' })
      t.ok(claimed?.startedAt)
      const id = claimed?.id as string
      t.ok(await runs.heartbeat(id, 'w1', later(30)))
      t.notOk(await runs.heartbeat(id, 'w2', later(30)), 'another token does not own it')
      t.equal(await runs.settle(id, { from: ['queued', 'running'], status: 'cancelled', at: now() }) === null, false, 'cancelled')
      t.notOk(await runs.heartbeat(id, 'w1', later(30)), 'the worker learns it lost the run')
      t.equal(await runs.settle(id, { from: ['running'], runToken: 'w1', status: 'succeeded', honey: '{}', at: now() }), null, 'and writes nothing')
      t.match(await runs.get(id), { status: 'cancelled', honey: null })
    })

    await t.test('a run whose worker died is claimed again once its lease passed', async (t) => {
      const { run: lost } = await runs.insert(run({ ownerHash: 'owner-c' }))
      const first = await runs.claim({ id: lost.id, runToken: 'dead', now: now(), leaseUntil: now() })
      t.equal(first?.attempts, 1)
      const again = await runs.claim({ id: lost.id, runToken: 'alive', now: later(1), leaseUntil: later(30) })
      t.match(again, { attempts: 2, startedAt: first?.startedAt })
      const succeeded = await runs.settle(lost.id, { from: ['running'], runToken: 'alive', status: 'succeeded', honey: '{"result":{}}', at: now() })
      t.match(succeeded, { status: 'succeeded', honey: '{"result":{}}', progress: 1 })
      t.ok(succeeded?.finishedAt)
    })

    await t.test('unfinished runs past their expiry are expired, once', async (t) => {
      const { run: stale } = await runs.insert(run({ ownerHash: 'owner-d', expiresAt: later(-1), holdId: 7 }))
      const expired = await runs.expireDue(now(), 100)
      t.match(expired, [{ id: stale.id, status: 'expired', holdId: 7, error: { code: 'RUN_EXPIRED' } }])
      t.same(await runs.expireDue(now(), 100), [])
      t.equal(await runs.claim({ id: stale.id, runToken: 'w', now: now(), leaseUntil: later(30) }), null, 'an expired run is not claimed')
    })

    await t.test('runs that ended before a time are purged; unfinished ones stay', async (t) => {
      const { run: ended } = await runs.insert(run({ ownerHash: 'owner-f' }))
      await runs.settle(ended.id, { from: ['queued'], status: 'cancelled', at: later(-7200) })
      const { run: open } = await runs.insert(run({ ownerHash: 'owner-f' }))
      t.ok(await runs.purgeEnded(later(-3600), 100) >= 1)
      t.equal(await runs.get(ended.id), null)
      t.match(await runs.get(open.id), { status: 'queued' })
    })

    await t.test('a running run keeps its events numbered in order, only from the worker that owns it, and loses them with it', async (t) => {
      const { run: queued } = await runs.insert(run({ ownerHash: 'owner-e' }))
      await runs.claim({ id: queued.id, runToken: 'token-e', now: now(), leaseUntil: later(30) })
      t.ok(await runs.appendEvent(queued.id, 'token-e', 'data', '{"tick":1}', now()))
      t.ok(await runs.appendEvent(queued.id, 'token-e', 'progress', '{"progress":0.5}', now()))
      t.ok(await runs.appendEvent(queued.id, 'token-e', 'data', '{"tick":2}', now()))
      t.notOk(await runs.appendEvent(queued.id, 'another-token', 'data', '{"tick":3}', now()), 'a worker that lost the run keeps nothing')
      t.same(await runs.eventsAfter(queued.id, 0, 10), [
        { seq: 1, kind: 'data', data: '{"tick":1}' }, { seq: 2, kind: 'progress', data: '{"progress":0.5}' }, { seq: 3, kind: 'data', data: '{"tick":2}' }
      ])
      t.same((await runs.eventsAfter(queued.id, 2, 10)).map((event) => event.seq), [3], 'after the last one seen')
      t.equal((await runs.get(queued.id))?.progress, 0.5)
      await runs.settle(queued.id, { from: ['running'], status: 'cancelled', at: later(-7200) })
      await runs.purgeEnded(later(-3600), 100)
      t.same(await runs.eventsAfter(queued.id, 0, 10), [], 'purged with its run')
    })

    await t.test('an owner lists its runs newest first, a page at a time', async (t) => {
      const ids: string[] = []
      for (let i = 0; i < 5; i++) ids.push((await runs.insert(run({ ownerHash: 'owner-e' }))).run.id)
      const first = await runs.list({ ownerHash: 'owner-e', limit: 2 })
      if (!first.ok) throw new Error('a page')
      t.same(first.items.map((item) => item.id), [ids[4], ids[3]])
      const second = await runs.list({ ownerHash: 'owner-e', limit: 2, cursor: first.nextCursor as string })
      if (!second.ok) throw new Error('a page')
      t.same(second.items.map((item) => item.id), [ids[2], ids[1]])
      const last = await runs.list({ ownerHash: 'owner-e', limit: 2, cursor: second.nextCursor as string })
      t.match(last, { ok: true, items: [{ id: ids[0] }], nextCursor: null })
      t.same(await runs.list({ ownerHash: 'owner-e', limit: 2, cursor: 'garbage!!' }), { ok: false, reason: 'INVALID_CURSOR' })
      t.match(await runs.list({ ownerHash: 'nobody', limit: 2 }), { ok: true, items: [], nextCursor: null })
    })
  })
}
