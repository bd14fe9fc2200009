import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { startFakeBee } from '../test/fake-bee.js'
import { seedCatalog, seedText } from './catalog-seed.js'
import type { Server } from './children.js'
import { createPublisher, SECRETS_KEY, startService } from './service.js'

/**
 * Where the memory of the catalog goes (issue 25): seeds SIZE Bees on SQLite, starts the built service with a probe
 * (bench/memory-probe.mjs), calls distinct Bees and, at each checkpoint, forces a full GC and prints RSS against V8's
 * heap, external and array buffers; with --snapshot it writes a heap snapshot at each checkpoint into the run's
 * directory. `tsx bench/memory.ts [SIZE] [CALLS] [--snapshot] [--node=FLAG…]`; extra env (CATALOG_CACHE_SIZE, MALLOC_ARENA_MAX) passes
 * through to the service.
 */
const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const size = Number(args[0] ?? 10_000)
const calls = Number(args[1] ?? size)
const snapshot = process.argv.includes('--snapshot')
/** Extra node flags for the service (`--node=--max-old-space-size=512`), on top of those `npm start` uses. */
const nodeFlags = process.argv.filter((arg) => arg.startsWith('--node=')).map((arg) => arg.slice('--node='.length))
const PROBE = fileURLToPath(new URL('./memory-probe.mjs', import.meta.url))
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)}`

function status (pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match?.[1] ?? NaN) * 1024
}

let probes = 0
async function probe (service: Server, dir: string, label: string): Promise<void> {
  const file = join(dir, `probe-${probes++}.json`)
  const rssBefore = status(service.pid, 'VmRSS')
  process.kill(service.pid, 'SIGWINCH')
  while (!existsSync(file)) await sleep(50)
  await sleep(100)
  const { before, after, spaces } = JSON.parse(readFileSync(file, 'utf8')) as {
    before: NodeJS.MemoryUsage, after: NodeJS.MemoryUsage, spaces: Record<string, { size: number, used: number }>
  }
  const space = (name: string) => `${mb(spaces[name]?.used ?? 0)}/${mb(spaces[name]?.size ?? 0)}`
  console.log(`| ${label} | ${mb(rssBefore)} | ${mb(status(service.pid, 'VmRSS'))} | ${mb(status(service.pid, 'VmHWM'))} | ${mb(before.heapUsed)} → ${mb(after.heapUsed)} (of ${mb(after.heapTotal)}) | ` +
    `${mb(after.external)} | ${mb(after.arrayBuffers)} | ${space('old_space')} | ${space('code_space')} | ${space('large_object_space')} | ${space('new_space')} |`)
}

const dir = mkdtempSync(join(tmpdir(), 'apiary-memory-'))
const databaseUrl = join(dir, 'catalog.db')
const passed = Object.fromEntries(['CATALOG_CACHE_SIZE', 'MALLOC_ARENA_MAX'].flatMap((name) => process.env[name] === undefined ? [] : [[name, process.env[name] as string]]))
const env = { EGRESS_ALLOWLIST: '127.0.0.1', PUBLISHER_MAX_BEES: String(size), PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '0', MEMORY_PROBE_DIR: dir, MEMORY_PROBE_SNAPSHOT: snapshot ? '1' : '0', ...passed }
const fake = await startFakeBee()
const forget = setInterval(() => { fake.calls.length = 0 }, 1000)
try {
  const migrating = await startService({ name: 'memory-migrate', databaseUrl, dir, env, startupLimitMs: 300_000 })
  const seeder = await createPublisher(migrating.url, 'seeder')
  await migrating.stop()
  await seedCatalog(databaseUrl, SECRETS_KEY, { ownerId: seeder.id, endpoint: fake.url, count: size })
  const service = await startService({ name: 'memory', databaseUrl, dir, env, nodeFlags: [...nodeFlags, '--expose-gc', `--import=${PROBE}`], startupLimitMs: 300_000 })
  while ((await fetch(`${service.url}/ready`)).status !== 200) await sleep(5)
  console.log(`Service ${service.pid} (${nodeFlags.join(' ') || 'npm start\'s flags'}), ${size} Bees seeded, run directory ${dir}; MB; heap spaces used/size after a full GC\n`)
  console.log('| Distinct Bees called | RSS | RSS after GC | peak RSS | heapUsed → after GC | external | arrayBuffers | old space | code space | large objects | new space |')
  console.log('|---|---|---|---|---|---|---|---|---|---|---|')
  await probe(service, dir, '0')
  const checkpoints = [...new Set([1_000, 2_000, 5_000, calls].filter((count) => count <= calls))]
  let done = 0
  for (const checkpoint of checkpoints) {
    let next = done
    await Promise.all(Array.from({ length: 8 }, async () => {
      for (let i = next++; i < checkpoint; i = next++) {
        const response = await fetch(`${service.url}/api/bees/${seedText((i * 7919) % size).id}/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"buzz"}' })
        await response.arrayBuffer()
        if (response.status !== 200) throw new Error(`execute answered ${response.status}`)
      }
    }))
    done = checkpoint
    await probe(service, dir, checkpoint.toLocaleString('en'))
  }
  await service.stop()
} finally {
  clearInterval(forget)
  await fake.close()
}
