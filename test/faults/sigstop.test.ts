import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { checkCase, createWallet, faultSkip, moreAnswers, recovery, sleep, startLoad, startService } from './harness.js'
import { sqliteBooks } from './machine.js'

test('SIGSTOP for 5 s under load, then SIGCONT', { skip: faultSkip() }, async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'apiary-fault-'))
  t.teardown(() => { rmSync(folder, { recursive: true, force: true }) })
  const database = join(folder, 'apiary.db')
  const service = await startService(t, { DATABASE_URL: database })
  const wallet = await createWallet(service.url, 1000)
  const load = startLoad(t, service.url, wallet.token)
  await moreAnswers(load.seen, 200)
  service.child.kill('SIGSTOP')
  await sleep(5000)
  service.child.kill('SIGCONT')
  const backAt = Date.now()
  const { readyMs, servedMs } = await recovery(service.url, load.seen, backAt)
  t.comment(`recovery after SIGCONT: /ready in ${readyMs} ms, a call sent after it answered in ${servedMs} ms`)
  t.ok(readyMs !== null && readyMs <= 2000, `/ready answers within 2 s (${readyMs} ms)`)
  t.ok(servedMs !== null && servedMs <= 2000, `calls are served within 2 s (${servedMs} ms)`)
  await moreAnswers(load.seen, 50)
  const seen = await load.stop()
  checkCase(t, service, seen, await sqliteBooks(database, wallet.id, 1000 * 1e6), 1000)
})
