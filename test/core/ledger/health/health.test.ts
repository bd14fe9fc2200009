import { test } from 'tap'
import { noCounts, type MinuteCounts } from '../../../../src/core/health/counts.js'
import { HealthBoard } from '../../../../src/core/health/board.js'
import { bucketOf } from '../../../../src/core/health/latency.js'
import { HealthRecorder } from '../../../../src/core/health/recorder.js'
import { HealthSync } from '../../../../src/core/health/sync.js'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import { backends, countRows, twoInstances } from '../../../databases.js'
import { SECRETS_KEY } from '../../../helper.js'

const silent = { fatal () {}, error () {}, warn () {}, info () {}, debug () {}, trace () {} }

/** `calls` runs of one Bee in one minute, `failures` of them failed, each taking `ms`. */
function minute (beeId: string, at: number, calls: number, failures: number, ms: number): MinuteCounts {
  const counts: MinuteCounts = { beeId, minute: at, ...noCounts() }
  counts.calls = calls
  counts.failures = failures
  counts.latency[bucketOf(ms)] = calls
  return counts
}

for (const backend of backends) {
  test(`health counters on ${backend.name}: added to, never overwritten; summed over the window; pruned`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())

    await store.health.add([minute('alpha', 100, 3, 1, 7), minute('beta', 100, 2, 0, 70)])
    await store.health.add([minute('alpha', 100, 1, 1, 700), minute('alpha', 101, 4, 0, 7)])
    await store.health.add([])
    const sums = await store.health.window(100)
    const alpha = sums.find((row) => row.beeId === 'alpha')
    t.match(alpha, { calls: 8, failures: 2, nonconforming: 0 }, 'both minutes, both writes of minute 100')
    t.equal(alpha?.latency[bucketOf(7)], 7)
    t.equal(alpha?.latency[bucketOf(700)], 1)
    t.match(sums.find((row) => row.beeId === 'beta'), { calls: 2, failures: 0 })
    t.same((await store.health.window(101)).map((row) => [row.beeId, row.calls]), [['alpha', 4]], 'only minutes from the first one asked')

    t.match(alpha, { firstMinute: 100 })
    t.match(await store.health.window(100, ['beta', 'gamma']), [{ beeId: 'beta', calls: 2 }], 'some Bees only; one without rows is absent')

    t.equal(await store.health.prune(101), 2, 'minute 100 of both Bees')
    t.equal(await countRows(database, 'bee_health'), 1)
  })

  test(`each health write on ${backend.name} is numbered, and says which Bees it touched`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())

    t.equal(await store.health.version(), 0, 'nothing written yet')
    await store.health.add([minute('alpha', 100, 1, 0, 7), minute('beta', 100, 1, 0, 7)])
    const first = await store.health.version()
    await store.health.add([])
    t.equal(await store.health.version(), first, 'an empty write is no write')
    await store.health.add([minute('beta', 101, 1, 0, 7), minute('gamma', 90, 1, 0, 7)])
    t.ok(await store.health.version() > first)
    t.same((await store.health.changedSince(first)).sort(), ['beta', 'gamma'], 'the Bees of the later write, whatever their minute')
    t.same((await store.health.changedSince(0)).sort(), ['alpha', 'beta', 'gamma'])
    t.same(await store.health.changedSince(await store.health.version()), [])
  })

  test(`a sync on ${backend.name} reads again only the Bees whose counts changed or lost a minute`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const [mine, theirs] = await twoInstances(t, database, { secretsKey: SECRETS_KEY, poolSize: 4 })
    let now = 1_000 * 60_000
    const asked: Array<string[] | undefined> = []
    const store = {
      ...mine.health,
      window: async (since: number, beeIds?: readonly string[]) => {
        asked.push(beeIds?.slice().sort())
        return await mine.health.window(since, beeIds)
      }
    }
    const recorder = new HealthRecorder(() => now)
    const board = new HealthBoard(10)
    const sync = new HealthSync({ recorder, board, store, log: silent, clock: () => now })
    const other = new HealthRecorder(() => now)
    const otherSync = new HealthSync({ recorder: other, board: new HealthBoard(10), store: theirs.health, log: silent, clock: () => now })

    for (const beeId of ['alpha', 'beta', 'gamma']) recorder.record(beeId, 'ok', 5)
    await sync.sync()
    t.same(asked, [undefined], 'the first sync reads every Bee')
    t.same(['alpha', 'beta', 'gamma', 'delta'].map((beeId) => board.of(beeId).calls), [1, 1, 1, 0])

    await sync.sync()
    t.same(asked, [undefined], 'nothing written since: nothing read')

    now += 4 * 60_000
    recorder.record('beta', 'failed', 5)
    other.record('delta', 'ok', 5)
    await otherSync.sync()
    await sync.sync()
    t.same(asked[1], ['beta', 'delta'], 'this instance\'s Bee and the other instance\'s, only')
    t.match(board.of('beta'), { calls: 2, successRate: 0.5 })
    t.match(board.of('delta'), { calls: 1, successRate: 1 }, 'the other instance\'s runs are on this board')
    t.equal(board.of('alpha').calls, 1, 'a Bee not read again keeps its figures')

    now += 6 * 60_000
    await sync.sync()
    t.same(asked[2], ['alpha', 'beta', 'gamma'], 'the window\'s first minute left it: the Bees that had counts there')
    t.same(['alpha', 'beta', 'gamma', 'delta'].map((beeId) => board.of(beeId).calls), [0, 1, 0, 1], 'only the minutes still in the window')
    t.equal(asked.length, 3)
  })

  test(`two instances on one ${backend.name} database add up their counts and read the same figures`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const [first, second] = await twoInstances(t, database, { secretsKey: SECRETS_KEY, poolSize: 4 })
    const now = Date.now()
    const instances = [first, second].map((store) => {
      const recorder = new HealthRecorder(() => now)
      const board = new HealthBoard(60)
      return { recorder, board, sync: new HealthSync({ recorder, board, store: store.health, log: silent, clock: () => now }) }
    })
    // Each instance: 40 runs of one Bee, 10 of them failed, and 5 runs of a second Bee, synced in rounds that race the other's.
    for (let round = 0; round < 5; round++) {
      for (const { recorder } of instances) {
        for (let run = 0; run < 8; run++) recorder.record('shared', run < 2 ? 'failed' : 'ok', 30)
        recorder.record('other', 'nonconforming', 3)
      }
      await Promise.all(instances.map(({ sync }) => sync.sync()))
    }
    // Each reads again, after the other's last write.
    await Promise.all(instances.map(({ sync }) => sync.sync()))
    for (const [index, { board }] of instances.entries()) {
      t.match(board.of('shared'), { windowMinutes: 60, calls: 80, successRate: 0.75, conformance: 1 }, `instance ${index + 1}: both instances' runs`)
      t.match(board.of('other'), { calls: 10, successRate: 0, conformance: 0 })
      t.same(board.of('never-ran'), { windowMinutes: 60, calls: 0, successRate: null, p50Ms: null, p95Ms: null, conformance: null })
    }
    t.same(instances[0]?.board.of('shared'), instances[1]?.board.of('shared'), 'the same figures on both')
  })

  test(`a sync on ${backend.name} reads only the window, prunes what left it, and keeps counts it could not write`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())
    let now = 1_000 * 60_000
    const recorder = new HealthRecorder(() => now)
    const board = new HealthBoard(10)
    const sync = new HealthSync({ recorder, board, store: store.health, log: silent, clock: () => now })

    recorder.record('alpha', 'ok', 5)
    await sync.sync()
    t.match(board.of('alpha'), { calls: 1, successRate: 1 })
    const version = board.version
    await sync.sync()
    t.equal(board.version, version, 'nothing new: the board stays as it was')

    now += 9 * 60_000
    recorder.record('alpha', 'failed', 5)
    await sync.sync()
    t.match(board.of('alpha'), { calls: 2, successRate: 0.5 }, 'ten minutes, the current one included')
    now += 60_000
    await sync.sync()
    t.match(board.of('alpha'), { calls: 1, successRate: 0 }, 'the first minute left the window')
    t.equal(await countRows(database, 'bee_health'), 1, 'and was pruned')
    now += 10 * 60_000
    await sync.sync()
    t.equal(board.of('alpha').calls, 0, 'nothing in the window: no figures')
    t.equal(board.of('alpha').successRate, null)

    const closed = await openStore(database.url, { secretsKey: SECRETS_KEY })
    await closed.close()
    const failing = new HealthSync({ recorder, board, store: closed.health, log: silent, clock: () => now })
    recorder.record('alpha', 'ok', 5)
    await t.rejects(failing.sync(), 'the ledger is closed')
    await sync.sync()
    t.match(board.of('alpha'), { calls: 1, successRate: 1 }, 'the run counted during the failed sync is written by the next')
  })
}
