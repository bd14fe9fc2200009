// Bench-only (loaded with `node --import`): on SIGWINCH (close-with-grace ends the service on SIGUSR2) the service
// runs a full GC and writes its memory figures, and a heap snapshot when MEMORY_PROBE_SNAPSHOT=1, to
// MEMORY_PROBE_DIR/probe-<n>.json. Never part of a service build.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import v8 from 'node:v8'

const dir = process.env.MEMORY_PROBE_DIR
let n = 0
process.on('SIGWINCH', () => {
  const at = n++
  const before = process.memoryUsage()
  globalThis.gc?.()
  const after = process.memoryUsage()
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size }]))
  const snapshot = process.env.MEMORY_PROBE_SNAPSHOT === '1' ? v8.writeHeapSnapshot(join(dir, `probe-${at}.heapsnapshot`)) : null
  writeFileSync(join(dir, `probe-${at}.json`), JSON.stringify({ before, after, spaces, heap: v8.getHeapStatistics(), snapshot }))
})
