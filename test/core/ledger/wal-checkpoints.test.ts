import Database from 'better-sqlite3'
import { copyFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { hashSecret } from '../../../src/core/ledger/secrets.js'
import { startWalCheckpoints } from '../../../src/core/ledger/wal-checkpoints.js'
import { issuedWallet, sqliteBackend } from '../../databases.js'

/** Holds in the database file by itself: what checkpoints have copied out of the write-ahead log, and nothing else. */
function holdsInFileAlone (file: string, folder: string): number {
  const copy = join(folder, `alone-${Math.random()}.db`)
  copyFileSync(file, copy)
  const database = new Database(copy, { readonly: true })
  try {
    // Before the first checkpoint even the schema is only in the log.
    const table = database.prepare("SELECT name FROM sqlite_master WHERE name = 'holds'").get()
    return table === undefined ? 0 : (database.prepare('SELECT count(*) AS n FROM holds').get() as { n: number }).n
  } catch (error) {
    // A copy taken while the thread was writing its pages may be torn (seen once on Node 26): the next one is not.
    if (['SQLITE_CORRUPT', 'SQLITE_NOTADB'].includes((error as { code?: string }).code ?? '')) return 0
    throw error
  } finally {
    database.close()
  }
}

/** How many holds the database file alone holds once `expected` are there, or after five seconds. */
async function copiedWithinFiveSeconds (url: string, expected: number): Promise<number> {
  let copied = 0
  for (let wait = 0; wait < 100 && copied < expected; wait++) {
    await sleep(50)
    copied = holdsInFileAlone(url, join(url, '..'))
  }
  return copied
}

test('on a SQLite file, a thread of its own checkpoints the write-ahead log, and closing the store leaves no log behind', async (t) => {
  const backend = sqliteBackend()
  t.teardown(backend.drop)
  const store = await openStore(backend.url)
  const { token } = await issuedWallet(store, 1_000_000)
  const holds = await Promise.all(Array.from({ length: 50 }, (_, i) => store.holds.place({
    tokenHash: hashSecret(token), micros: 10, currency: 'USD', beeId: 'b', requestId: `r-${i}`, claim: null, expiresInSeconds: 120
  })))
  t.ok(holds.every((hold) => hold.ok), 'the holds were placed')
  t.ok(existsSync(`${backend.url}-wal`), 'the ledger writes through a write-ahead log')
  // Far below the service connection's own threshold (4,000 pages): only the thread copies these pages to the file.
  t.equal(await copiedWithinFiveSeconds(backend.url, 50), 50, 'the database file alone holds every hold: a checkpoint ran while the service did nothing')
  await store.close()
  // Only the last connection to close removes the log: the thread's closed first.
  t.notOk(existsSync(`${backend.url}-wal`), 'no write-ahead log is left')
})

test('the server\'s store starts its checkpoint thread once the server listens, not during the start; closed before, it closes at once', async (t) => {
  const backend = sqliteBackend()
  t.teardown(backend.drop)
  let listening = () => {}
  const store = await openStore(backend.url, { checkpointsFrom: new Promise((resolve) => { listening = resolve }) })
  const { token } = await issuedWallet(store, 1_000_000)
  const holds = await Promise.all(Array.from({ length: 20 }, (_, i) => store.holds.place({
    tokenHash: hashSecret(token), micros: 10, currency: 'USD', beeId: 'b', requestId: `r-${i}`, claim: null, expiresInSeconds: 120
  })))
  t.ok(holds.every((hold) => hold.ok), 'the holds were placed')
  // The thread looks every 100 ms once started: a second without a copy is a second without a thread.
  await sleep(1000)
  t.equal(holdsInFileAlone(backend.url, join(backend.url, '..')), 0, 'before listening, no checkpoint ran: the holds are in the log alone')
  listening()
  t.equal(await copiedWithinFiveSeconds(backend.url, 20), 20, 'once listening, the thread copied them into the file')
  await store.close()

  const never = sqliteBackend()
  t.teardown(never.drop)
  const unstarted = await openStore(never.url, { checkpointsFrom: new Promise(() => {}) })
  const started = Date.now()
  await unstarted.close()
  t.ok(Date.now() - started < 1000, `a store whose thread never started closed in ${Date.now() - started} ms`)
  t.notOk(existsSync(`${never.url}-wal`), 'and left no write-ahead log')
})

test('a checkpoint thread that cannot open its file reports it, so the service connection checkpoints again itself', async (t) => {
  const backend = sqliteBackend()
  t.teardown(backend.drop)
  // The thread does not keep a process alive: this test's timer does, until the thread has reported.
  const alive = setInterval(() => {}, 1000)
  const ended = await new Promise<Error | undefined>((resolve) => {
    startWalCheckpoints(join(backend.url, 'no-such-folder', 'ledger.db'), resolve)
  })
  clearInterval(alive)
  t.match(ended, { message: /cannot open database/i })
})

test('stopping a checkpoint thread that has already ended returns at once: a shutdown never waits on a dead thread', async (t) => {
  const backend = sqliteBackend()
  t.teardown(backend.drop)
  const alive = setInterval(() => {}, 1000)
  t.teardown(() => { clearInterval(alive) })
  let checkpoints: ReturnType<typeof startWalCheckpoints> | undefined
  await new Promise<Error | undefined>((resolve) => {
    checkpoints = startWalCheckpoints(join(backend.url, 'no-such-folder', 'ledger.db'), resolve)
  })
  // Its exit, which a stop would wait for, follows its error: within milliseconds, but later on a loaded machine (CI
  // once took over 100). A stop that waited on the exit already past would wait out its 2 s timeout.
  await sleep(500)
  const started = Date.now()
  await checkpoints?.stop()
  t.ok(Date.now() - started < 1000, `stopped in ${Date.now() - started} ms, not after the 2 s a live thread gets`)
})
