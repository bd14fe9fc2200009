// How many access log lines a crash loses: the log is written asynchronously (pino.destination with sync: false, see
// src/logger.ts), so lines the process had queued but not yet written die with it. Loads discovery, SIGKILLs the
// service mid-load (no flush runs, as in an OOM kill), and counts 2xx answers the client received against the lines
// in the log. SIGTERM and uncaught errors flush the log first (src/server.ts), so they lose nothing.
// Usage: npm run build && tsx bench/log-loss.ts [ROUNDS]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import autocannon from 'autocannon'
import { stopAll } from './children.js'
import { BEES_PATH } from './scenarios.js'
import { startService } from './service.js'

const rounds = Number(process.argv[2] ?? 5)
const dir = mkdtempSync(join(tmpdir(), 'apiary-log-loss-'))
try {
  const rows = ['| Round | 2xx answers received | Lines logged | Lost |', '|---|---|---|---|']
  for (let round = 1; round <= rounds; round++) {
    const name = `log-loss-${round}`
    const service = await startService({ name, databaseUrl: join(dir, `${name}.db`), dir })
    const load = autocannon({ url: service.url + BEES_PATH, connections: 50, duration: 3 })
    await sleep(2000)
    process.kill(service.pid, 'SIGKILL')
    const result = await load
    const logged = readFileSync(join(dir, `${name}.log`), 'utf8').split('\n').filter((line) => line.includes('"request completed"') && line.includes(BEES_PATH)).length
    rows.push(`| ${round} | ${result['2xx']} | ${logged} | ${result['2xx'] - logged} |`)
    await service.stop()
  }
  console.log(rows.join('\n'))
} finally {
  await stopAll()
  rmSync(dir, { recursive: true, force: true })
}
