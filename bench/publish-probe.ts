// The catalog bench's publish and PATCH phases alone (bench/catalog.ts without its other rows), with what each
// operation costs: CPU of the service and of its PostgreSQL backends (from /proc, so not the bench's own), the
// backends' wait events (pg_stat_activity every 20 ms), the requests over 50 ms, and with --queries the statements
// sent per operation. The numbers docs/performance.md gives for issue 25 come from it.
// Usage: npm run build && DATABASE_URL=postgres://… npx tsx bench/publish-probe.ts [--count N] [--seeded N] [--queries] [-- NODE_FLAGS…]
//   --count    Bees published, then PATCHed, by 8 publishers (default 4,000)
//   --seeded   Bees seeded with COPY first (default 90,000, the catalog bench's)
//   --queries  runs dist/src/server.js with bench/query-counter.mjs (the bundle inlines pg, which the counter patches)
//   NODE_FLAGS e.g. --cpu-prof --cpu-prof-dir=DIR (then `npx tsx bench/cpu-profile.ts FILE 60`)
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { startFakeBee } from '../test/fake-bee.js'
import { INPUT_SCHEMA, OUTPUT_SCHEMA, seedCatalog, seedText } from './catalog-seed.js'
import { isPostgresUrl, privateSchema } from './postgres.js'
import { createPublisher, SECRETS_KEY, startService } from './service.js'

const { values, positionals: nodeFlags } = parseArgs({
  allowPositionals: true,
  options: { count: { type: 'string', default: '4000' }, seeded: { type: 'string', default: '90000' }, queries: { type: 'boolean', default: false } }
})
const count = Number(values.count)
const seeded = Number(values.seeded)
const serverUrl = process.env.DATABASE_URL
if (!isPostgresUrl(serverUrl)) throw new Error('DATABASE_URL must be a postgres:// URL')
const PUBLISHERS = 8
/** The service's connections name themselves so (PGAPPNAME), so that its backends can be told from others'. */
const APP = 'apiary-publish-probe'
const CLOCK_TICKS = 100

/** User and system CPU of a process so far, in ms (0 once it is gone). */
function cpuMs (pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 1000 / CLOCK_TICKS
  } catch {
    return 0
  }
}

const percentile = (sorted: number[], share: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0
const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

const schema = await privateSchema(serverUrl)
const dir = mkdtempSync(join(tmpdir(), 'publish-probe-'))
const countsFile = join(dir, 'queries.json')
const env = {
  EGRESS_ALLOWLIST: '127.0.0.1',
  PUBLISHER_MAX_BEES: String(count + seeded),
  PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '0',
  PGAPPNAME: APP,
  QUERY_COUNTS_FILE: countsFile
}
const fake = await startFakeBee()
const admin = new pg.Client({ connectionString: serverUrl })
await admin.connect()
try {
  const migrating = await startService({ name: 'probe-migrate', databaseUrl: schema.url, dir, env })
  const seeder = await createPublisher(migrating.url, 'seeder')
  const keys = await Promise.all(Array.from({ length: PUBLISHERS }, async (_, i) => (await createPublisher(migrating.url, `publisher${i}`)).key))
  await migrating.stop()
  if (seeded > 0) await seedCatalog(schema.url, SECRETS_KEY, { ownerId: seeder.id, endpoint: fake.url, count: seeded })
  const service = await startService({
    name: 'probe',
    databaseUrl: schema.url,
    dir,
    env,
    startupLimitMs: 600_000,
    ...values.queries
      ? { script: fileURLToPath(new URL('../dist/src/server.js', import.meta.url)), nodeFlags: ['--import', fileURLToPath(new URL('query-counter.mjs', import.meta.url)), ...nodeFlags] }
      : { nodeFlags }
  })
  console.log(`service log: ${dir}/probe.log`)

  const backends = async () => (await admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE application_name = $1', [APP])).rows.map((row) => row.pid)
  /** The statements sent so far, by text (with --queries). */
  const queryCounts = async (): Promise<Map<string, number>> => {
    if (!values.queries) return new Map()
    process.kill(service.pid, 'SIGWINCH')
    await sleep(200)
    return new Map(JSON.parse(readFileSync(countsFile, 'utf8')) as Array<[string, number]>)
  }

  const phase = async (name: string, job: (i: number, key: string) => Promise<Response>) => {
    const queriesBefore = await queryCounts()
    const before = new Map((await backends()).map((pid) => [pid, cpuMs(pid)]))
    const serviceBefore = cpuMs(service.pid)
    const waits = new Map<string, number>()
    let samples = 0
    const sampling = { on: true }
    const sampler = (async () => {
      while (sampling.on) {
        const { rows } = await admin.query<{ wait: string }>(`SELECT coalesce(wait_event_type || ':' || wait_event, state) AS wait
          FROM pg_stat_activity WHERE application_name = $1 AND state <> 'idle'`, [APP])
        samples++
        for (const { wait } of rows) waits.set(wait, (waits.get(wait) ?? 0) + 1)
        await sleep(20)
      }
    })()
    const latencies: number[] = []
    const slow: string[] = []
    const started = performance.now()
    let next = 0
    await Promise.all(keys.map(async (key) => {
      for (let i = next++; i < count; i = next++) {
        const at = performance.now()
        const response = await job(i, key)
        await response.arrayBuffer()
        if (response.status >= 400) throw new Error(`${name} ${i} answered ${response.status}`)
        const latency = performance.now() - at
        latencies.push(latency)
        if (latency > 50) slow.push(`${(at - started).toFixed(0)}:${latency.toFixed(0)}`)
      }
    }))
    const seconds = (performance.now() - started) / 1000
    sampling.on = false
    await sampler
    const serviceMs = cpuMs(service.pid) - serviceBefore
    let postgresMs = 0
    for (const pid of await backends()) postgresMs += cpuMs(pid) - (before.get(pid) ?? 0)
    latencies.sort((a, b) => a - b)
    console.log(`${name}: ${(count / seconds).toFixed(0)}/s, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms; ` +
      `CPU per ${name}: service ${(serviceMs / count).toFixed(2)} ms, PostgreSQL backends ${(postgresMs / count).toFixed(2)} ms; load average ${loadAverage()}`)
    console.log(`  over 50 ms (start:latency, ms from the phase's start): ${slow.length} ${slow.join(' ')}`)
    console.log(`  the service's backends not idle, on average per sample (${samples}): ` +
      [...waits].sort((a, b) => b[1] - a[1]).map(([wait, n]) => `${wait} ${(n / samples).toFixed(2)}`).join(', '))
    if (values.queries) {
      const after = await queryCounts()
      const per = [...after].map(([text, n]): [string, number] => [text, (n - (queriesBefore.get(text) ?? 0)) / count]).filter(([, n]) => n >= 0.01)
      console.log(`  statements per ${name}: ${per.reduce((sum, [, n]) => sum + n, 0).toFixed(2)}`)
      for (const [text, n] of per.sort((a, b) => b[1] - a[1])) console.log(`    ${n.toFixed(2)}  ${text.slice(0, 140)}`)
    }
  }

  const json = (key: string, method: string, body: unknown): RequestInit =>
    ({ method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const owners: string[] = []
  await phase('publish', async (i, key) => {
    owners[i] = key
    return await fetch(`${service.url}/api/bees`, json(key, 'POST', {
      ...seedText(1_000_000 + i),
      id: `pub-${i}`,
      endpoint: fake.url,
      inputSchema: INPUT_SCHEMA,
      outputSchema: OUTPUT_SCHEMA,
      pricing: { type: 'free', costPerCall: 0 },
      config: { primaryServices: ['bench'] }
    }))
  })
  await phase('PATCH', async (i) => await fetch(`${service.url}/api/bees/pub-${i}`,
    json(owners[i] as string, 'PATCH', { description: `Changed by the bench: ${seedText(i).description}` })))
  await service.stop()
} finally {
  await admin.end()
  await fake.close()
  await schema.drop()
}
