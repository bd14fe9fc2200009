import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { serverArgs } from '../server-process.js'

test('a spawned server refuses a mistyped DATABASE_URL: exit 1, the variable named, no SQLite file made', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-cwd-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const url of ['Postgres://apiary@db.internal:5432/apiary', 'mysql://x@y/z']) {
    const child = spawn(process.execPath, serverArgs('bundle'), {
      cwd: dir,
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', DATABASE_URL: url },
      stdio: ['ignore', 'ignore', 'pipe']
    })
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    const [code] = await once(child, 'exit') as [number | null]
    clearTimeout(timer)
    t.equal(code, 1, url)
    t.match(stderr, /Invalid configuration: DATABASE_URL must be a file path/, url)
  }
  t.same(readdirSync(dir), [], 'no ledger file was made')
})
