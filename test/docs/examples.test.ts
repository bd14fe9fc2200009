import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import tap, { test } from 'tap'
import { ADMIN_TOKEN, SECRETS_KEY, build, createWallet } from '../helper.js'
import { difference, documentationFiles, examplesOf, serverStart } from './examples.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
// Each runnable example starts a service of its own: more than the default minute in all.
tap.setTimeout(300_000)

const examples = documentationFiles(root).flatMap((file) => examplesOf(root, file))

test('every shell example in README.md and docs/ says whether it runs here, and why not', async (t) => {
  const unmarked = examples.filter((example) => example.marker === undefined).map((example) => example.where)
  t.same(unmarked, [], 'put <!-- example: run --> or <!-- example: skip: <why> --> on the line before each sh block')
})

test('the difference of a printed answer and an actual one', async (t) => {
  t.equal(difference('{"a":1,"at":"2026-11-22T03:45:18.954Z","id":"wal_AAAAAAAAAAAA"}', '{"a":1,"at":"2027-01-01T00:00:00.000Z","id":"wal_BBBBBBBBBBBBBBBB"}'), undefined,
    'timestamps and ids by shape')
  t.match(difference('{"confidence":0.9799554565701558}', '{"confidence":0.9523809523809523}'), /\$\.confidence/, 'a stale number is found')
  t.match(difference('{"a":1,"b":2}', '{"b":2,"a":1}'), /keys b, a/, 'key order counts: it is what a reader sees')
  t.equal(difference('{"p50Ms":0.8,"ok":true}', '{"p50Ms":3.1,"ok":true}', ['p50Ms']), undefined, 'vary keys by type')
  t.equal(difference('{"id":"text-summarizer", … ,"health":{"p50Ms":0.8}}', '{"id":"text-summarizer","name":"x","health":{"p50Ms":2}}', ['p50Ms']), undefined,
    '… in text stands for anything')
  t.match(difference('200\n429', '200\n200'), /differs/, 'plain text is compared line for line')
})

test('an example that starts its own service: the line is taken out, its variables given to the service', async (t) => {
  const { script, serverEnv } = serverStart('ADMIN_TOKEN=$ADMIN_TOKEN EGRESS_ALLOWLIST=127.0.0.1 npm start &\ncurl -s localhost:3000/health', { ADMIN_TOKEN: 'secret' })
  t.same(serverEnv, { ADMIN_TOKEN: 'secret', EGRESS_ALLOWLIST: '127.0.0.1' }, '$ADMIN_TOKEN is the shell\'s own variable')
  t.equal(script, 'curl -s localhost:3000/health')
})

// Four at a time: each example waits on its own service and shell, not on the CPU, most of the time.
test('the runnable examples print what the documentation shows', { jobs: 4 }, async (t) => {
  for (const example of examples) {
    if (example.marker?.run !== true) continue
    const vary = example.marker.vary
    // Each example gets a service of its own, as a reader who starts one would, so no example sees another's calls.
    t.test(example.where, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'apiary-example-'))
      t.teardown(() => rmSync(dir, { recursive: true, force: true }))
      // The variables every example's shell has before its own: the service line may name them.
      const { script, serverEnv } = serverStart(example.script, { SECRETS_KEY, ADMIN_TOKEN })
      const databaseUrl = join(dir, 'apiary.db')
      const server = await build(t, { env: { DATABASE_URL: databaseUrl, ...serverEnv } })
      await server.listen({ port: 0, host: '127.0.0.1' })
      const address = server.server.address()
      if (address === null || typeof address === 'string') throw new Error('not listening')
      const wallet = await createWallet(server, 5)
      // The examples talk to localhost:3000; this service listens on a free port (the machine may run another).
      const here = `localhost:${address.port}`
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? dir,
        TMPDIR: dir,
        DATABASE_URL: databaseUrl,
        SECRETS_KEY,
        ADMIN_TOKEN,
        APIARY_WALLET_TOKEN: wallet.token
      }
      const { stdout } = await run('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script.replaceAll('localhost:3000', here)], { cwd: root, env, timeout: 30_000 })
      if (example.printed === undefined) return
      const actual = stdout.replaceAll(here, 'localhost:3000').replaceAll('\r\n', '\n')
      t.equal(difference(example.printed, actual, vary), undefined, `prints what ${example.where} shows`, { actual })
    })
  }
  t.ok(examples.some((example) => example.marker?.run === true && example.printed !== undefined), 'some example is checked against its answer')
})
