import { existsSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { test } from 'tap'
import { checkCase, createWallet, faultSkip, moreAnswers, outageLines, recovery, sleep, startLoad, startService, until } from './harness.js'
import { sqliteBooks, tmpfs } from './machine.js'

/** Fills the file system of `folder` to its last block; returns the files that hold it, to free it with. */
function fill (folder: string): string[] {
  const files: string[] = []
  for (const size of [1 << 20, 64 << 10, 4 << 10, 512]) {
    for (;;) {
      const file = join(folder, `filler-${files.length}`)
      try {
        writeFileSync(file, Buffer.alloc(size))
        files.push(file)
      } catch {
        // The last one may exist, empty or in part.
        if (existsSync(file)) files.push(file)
        break
      }
    }
  }
  return files
}

/**
 * The disk's size: room for the service's write-ahead log at its largest (4,000 pages, about 16 MB), so that it is the
 * filler that fills the disk, not the log outgrowing an 8 MB disk under load before the case fills it (it did, on a
 * busy machine: the checkpoint thread fell behind).
 */
const DISK_MB = 32

const readyCode = async (url: string) => await fetch(`${url}/ready`).then(async (response) => response.status === 200 ? 'ready' : ((await response.json()) as { code: string }).code, () => 'no answer')

const integrity = (path: string) => {
  const database = new Database(path, { readonly: true })
  try {
    return database.pragma('integrity_check', { simple: true })
  } finally {
    database.close()
  }
}

test('SQLite on a 32 MB tmpfs that fills under load, then is freed', { skip: faultSkip() }, async (t) => {
  const folder = await tmpfs(t, DISK_MB)
  const database = join(folder, 'apiary.db')
  const service = await startService(t, { DATABASE_URL: database })
  const wallet = await createWallet(service.url, 1000)
  const load = startLoad(t, service.url, wallet.token)
  await moreAnswers(load.seen, 200)

  const filler = fill(folder)
  const full = await until(10_000, async () => await readyCode(service.url) === 'STORE_FULL')
  t.ok(full !== null, '/ready says STORE_FULL once the disk is full')
  await sleep(2000)
  t.ok((load.seen.codes.get('503 STORE_FULL') ?? 0) > 0, `calls meanwhile are refused with 503 STORE_FULL (${load.seen.codes.get('503 STORE_FULL')})`)

  for (const file of filler) unlinkSync(file)
  const backAt = Date.now()
  const { readyMs, servedMs } = await recovery(service.url, load.seen, backAt)
  t.comment(`recovery after the space was freed: /ready in ${readyMs} ms, a call sent after it answered in ${servedMs} ms`)
  t.ok(readyMs !== null && readyMs <= 2000, `/ready answers within 2 s (${readyMs} ms)`)
  t.ok(servedMs !== null && servedMs <= 2000, `calls are served within 2 s (${servedMs} ms)`)
  await moreAnswers(load.seen, 50)
  const seen = await load.stop()
  checkCase(t, service, seen, await sqliteBooks(database, wallet.id, 1000 * 1e6), 1000)

  const lines = service.lines()
  const { started, ended, stacks } = outageLines(lines, 'ledger database')
  t.ok(started.length >= 1 && started.length === ended.length, `the outage is said when it starts and ends (${started.length})`)
  t.match(started[0], { err: { message: 'database or disk is full' } }, 'with the real error, not a failed rollback')
  t.comment(`outage lines: ${JSON.stringify(ended.map(({ downMs, refusedCalls, failures }) => ({ downMs, refusedCalls, failures })))}`)
  t.same(stacks.filter((line) => !started.includes(line)).map((line) => line.msg), [], 'no stack but the outage\'s first error')
  t.notOk(lines.some((line) => /cannot rollback/.test(JSON.stringify(line))), 'no "cannot rollback" anywhere')

  const stopped = Date.now()
  t.same(await service.stop(), { code: 0, signal: null }, 'SIGTERM ends it cleanly')
  t.ok(Date.now() - stopped < 5000, `within ${Date.now() - stopped} ms`)
  t.notOk(existsSync(`${database}-wal`), 'no write-ahead log left behind')
  t.equal(integrity(database), 'ok', 'integrity_check: ok')
})

test('SQLite stopped while its disk is still full: a clean exit, the log says why the write-ahead log stays, and nothing is lost', { skip: faultSkip() }, async (t) => {
  const folder = await tmpfs(t, DISK_MB)
  const database = join(folder, 'apiary.db')
  const service = await startService(t, { DATABASE_URL: database })
  const wallet = await createWallet(service.url, 1000)
  const load = startLoad(t, service.url, wallet.token, 4)
  await moreAnswers(load.seen, 200)
  const filler = fill(folder)
  await until(10_000, async () => await readyCode(service.url) === 'STORE_FULL')
  const exit = await service.stop()
  await load.abort()
  t.same(exit, { code: 0, signal: null }, 'SIGTERM ends it cleanly, disk full or not')
  const wal = existsSync(`${database}-wal`)
  const said = service.lines().some((line) => line.msg.startsWith('the write-ahead log could not be checkpointed at close'))
  t.comment(`stopped on a full disk: the -wal file ${wal ? 'stays' : 'was removed'}; the log ${said ? 'says why' : 'says nothing of it'}`)
  t.ok(!wal || said, 'a -wal left behind is said in the log')
  for (const file of filler) unlinkSync(file)
  t.equal(integrity(database), 'ok', 'once space is freed: integrity_check ok (the log is applied on open)')
  const books = await sqliteBooks(database, wallet.id, 1000 * 1e6, 0)
  t.ok(books.captures.length >= 200, `the ${books.captures.length} captures are there`)
  // A hold whose void met the full disk stays pending until the next start's sweeper voids it.
  t.equal(books.spentMicros, books.captures.reduce((sum, capture) => sum + capture.amount, 0) + books.pendingHolds * 1000,
    `and the wallet lost what they took, and what ${books.pendingHolds} holds still pending hold`)
})
