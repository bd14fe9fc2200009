import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { freePort } from '../free-port.js'

const built = existsSync('dist/bundle/server.js') ? false : 'not built: npm run build'

/** Starts the bundle as `npm start` does, waits for its first /health 200, and stops it with SIGTERM. */
async function startAndStop (folder: string, cacheDir: string): Promise<number> {
  const port = await freePort()
  const server = spawn(process.execPath, ['--max-semi-space-size=16', '--max-old-space-size=512', 'dist/bundle/server.js'], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), DATABASE_URL: join(folder, 'apiary.db'), LOG_LEVEL: 'warn', CODE_CACHE_DIR: cacheDir },
    stdio: 'ignore'
  })
  const exited = once(server, 'exit')
  try {
    for (const deadline = Date.now() + 60_000; ;) {
      if (server.exitCode !== null) throw new Error(`the server exited ${server.exitCode}`)
      if (await fetch(`http://127.0.0.1:${port}/health`).then((response) => response.ok, () => false)) break
      if (Date.now() > deadline) throw new Error('no /health 200 within 60 s')
      await sleep(50)
    }
  } finally {
    server.kill('SIGTERM')
  }
  const [code] = await exited
  return code as number
}

test('the first start writes V8\'s code cache, the next reads it; without a writable cache directory a start still serves', { skip: built }, async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'apiary-code-cache-test-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const cacheDir = join(folder, 'cache')

  t.equal(await startAndStop(folder, cacheDir), 0)
  const written = readdirSync(cacheDir)
  t.match(written, [/^app-[0-9a-f]{32}\.bin$/], 'one cache file, written by the start that found none')
  const { mtimeMs, mode } = statSync(cacheDir)
  t.equal(mode & 0o777, 0o700, 'a directory only its user may read and write')
  const cacheFile = join(cacheDir, written[0] ?? 'none')
  const cacheWritten = statSync(cacheFile).mtimeMs

  t.equal(await startAndStop(folder, cacheDir), 0)
  // A cache V8 refused would have been written again.
  t.same(readdirSync(cacheDir), written, 'no other file')
  t.equal(statSync(cacheFile).mtimeMs, cacheWritten, 'the second start took the cache as it was')
  t.equal(statSync(cacheDir).mtimeMs, mtimeMs, 'and wrote nothing beside it')

  // A path that cannot be a directory: as a read-only or full disk, the start compiles and serves.
  const notADirectory = join(folder, 'a-file')
  writeFileSync(notADirectory, '')
  t.equal(await startAndStop(folder, join(notADirectory, 'cache')), 0)
})
