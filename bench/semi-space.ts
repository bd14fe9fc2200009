// Measures V8's young generation size (--max-semi-space-size) against throughput and peak RSS: one service per size,
// each loaded on discovery and on the paid call in interleaved rounds against one started as `npm start` starts it
// (V8's default until a size was set there); the pick is set in `npm start` and the Dockerfile. Usage: npm run build && tsx bench/semi-space.ts [MB,MB…]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { peakRssBytes, stopAll } from './children.js'
import { compare, type Target } from './load.js'
import { BEES_PATH, paidCall } from './scenarios.js'
import { fundedWallet, startService } from './service.js'

const sizes = (process.argv[2] ?? '1,2,4,8,16,32').split(',').map(Number)
const dir = mkdtempSync(join(tmpdir(), 'apiary-semi-space-'))
const load = { connections: 50, rounds: 3, seconds: 3, warmupSeconds: 1 }
const megabytes = (bytes: number | null) => bytes === null ? 'n/a' : `${(bytes / 1e6).toFixed(0)} MB`

try {
  const rows = ['| --max-semi-space-size | discovery, vs npm start | paid (SQLite), vs npm start | peak RSS | npm start\'s peak RSS |', '|---|---|---|---|---|']
  for (const size of sizes) {
    const service = await startService({ name: `semi-${size}`, databaseUrl: join(dir, `semi-${size}.db`), dir, nodeFlags: [`--max-semi-space-size=${size}`] })
    // A fresh reference each time, so that both peaks are over the same load.
    const reference = await startService({ name: `semi-default-${size}`, databaseUrl: join(dir, `default-${size}.db`), dir })
    const [wallet, referenceWallet] = [await fundedWallet(service.url), await fundedWallet(reference.url)]
    const discovery = (url: string): Target => ({ url: url + BEES_PATH, method: 'GET' })
    console.error(`… ${size} MB`)
    const read = await compare(discovery(service.url), discovery(reference.url), load)
    const paid = await compare(paidCall(service.url, [wallet]), paidCall(reference.url, [referenceWallet]), load)
    rows.push(`| ${size} MB | ${read.pairedRatio.toFixed(2)} | ${paid.pairedRatio.toFixed(2)} | ${megabytes(peakRssBytes(service.pid))} | ${megabytes(peakRssBytes(reference.pid))} |`)
    await Promise.all([service.stop(), reference.stop()])
  }
  console.log(rows.join('\n'))
} finally {
  await stopAll()
  rmSync(dir, { recursive: true, force: true })
}
