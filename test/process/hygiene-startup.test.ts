import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import Database from 'better-sqlite3'
import { test } from 'tap'
import { openStore } from '../../src/core/ledger/open-store.js'
import { sqliteBackend } from '../databases.js'
import { serverArgs, startServer } from '../server-process.js'

/** Runs the bundle as `npm start` would, and resolves with its exit code once it ends by itself. */
async function exitCodeOf (env: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, serverArgs('bundle'), {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'fatal', ...env },
    stdio: 'ignore'
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
  const [code] = await once(child, 'exit') as [number | null]
  clearTimeout(timer)
  return code
}

test('a port already in use stops start-up with a non-zero exit code', async (t) => {
  const blocker = createServer().listen(0, '127.0.0.1')
  await once(blocker, 'listening')
  t.teardown(() => blocker.close())
  const database = sqliteBackend()
  t.teardown(database.drop)
  const port = (blocker.address() as AddressInfo).port
  t.equal(await exitCodeOf({ PORT: String(port), DATABASE_URL: database.url }), 1)
})

// Start-up reads the catalog's change sequence, not its Bees (issue 25): a stored Bee this version cannot read is
// found on its first use, and refused by itself, where it once stopped every instance from starting.
test('a published Bee stored unreadable does not stop start-up: the service is ready and that Bee alone is refused', async (t) => {
  const database = sqliteBackend()
  t.teardown(database.drop)
  const store = await openStore(database.url)
  await store.catalog.createPublisher({ id: 'pub_1', email: 'a@example.com', name: 'A', createdAt: new Date().toISOString(), keyHash: 'h' })
  await store.close()
  // A published Bee whose stored schema is not JSON.
  const raw = new Database(database.url)
  const now = new Date().toISOString()
  raw.prepare(`INSERT INTO published_bees (id, owner_id, owner_email, name, description, category, colony, endpoint,
    input_schema, output_schema, primary_services, pricing_type, cost_micros, currency, status, signing_secret, version,
    created_at, updated_at) VALUES ('broken', 'pub_1', 'a@example.com', 'Broken', 'x', 'utility', 'community',
    'https://example.com/x', 'not json', '{}', '[]', 'free', 0, 'USD', 'active', 's', 1, ?, ?)`).run(now, now)
  raw.prepare('UPDATE catalog_version SET version = version + 1').run()
  raw.close()
  const server = await startServer({ DATABASE_URL: database.url })
  t.teardown(() => server.stop())
  t.equal((await fetch(`${server.url}/ready`)).status, 200)
  t.match(await (await fetch(`${server.url}/api/bees/broken`)).json(), { code: 'BEE_NOT_FOUND' }, 'the unreadable Bee is not served')
  const call = await fetch(`${server.url}/api/bees/broken/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  t.equal(call.status, 404, 'nor run')
  t.equal((await fetch(`${server.url}/api/bees/text-summarizer`)).status, 200, 'the other Bees are served')
})

test('an unreachable database stops start-up with a non-zero exit code', async (t) => {
  t.equal(await exitCodeOf({ PORT: '0', DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none', SECRETS_KEY: Buffer.alloc(32, 1).toString('base64') }), 1)
})
