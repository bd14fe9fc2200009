import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { seedCatalog, seedText } from './catalog-seed.js'
import type { Server } from './children.js'
import { isPostgresUrl, privateSchema } from './postgres.js'
import { createPublisher, SECRETS_KEY, startService } from './service.js'

/** One row of the issue's goal table: what was measured, its goal, and whether it holds. */
interface Row { measure: string, value: string, goal: string, holds: boolean | null }

const PUBLISHERS = 8
const RSS_LIMIT_MB = 250
const FLAT_RATIO = 0.8

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))] ?? 0
const ms = (value: number) => `${value.toFixed(1)} ms`

/** The process's resident set now (VmRSS), in MB. */
function rssMb (pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match?.[1] ?? NaN) / 1024
}

/** Spawn to the first 200 on /ready (the catalog loaded), not only /health. */
async function readyMs (server: Server): Promise<number> {
  const started = performance.now()
  while ((await fetch(`${server.url}/ready`)).status !== 200) await sleep(5)
  return server.startupMs + performance.now() - started
}

async function timed (url: string, init?: RequestInit): Promise<number> {
  const started = performance.now()
  const response = await fetch(url, init)
  await response.arrayBuffer()
  if (response.status >= 400) throw new Error(`${init?.method ?? 'GET'} ${url} answered ${response.status}`)
  return performance.now() - started
}

/** `count` Bees published through the API by 8 publishers at once; the completion time and latency of each, in order. */
async function publishAll (url: string, keys: string[], count: number): Promise<Array<{ at: number, latency: number }>> {
  const done: Array<{ at: number, latency: number }> = []
  let next = 0
  await Promise.all(keys.map(async (key) => {
    for (let i = next++; i < count; i = next++) {
      const text = seedText(1_000_000 + i)
      const body = {
        ...text,
        id: `pub-${i}`,
        endpoint: 'http://127.0.0.1:9/bee',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        pricing: { type: 'free', costPerCall: 0 },
        config: { primaryServices: ['bench'] }
      }
      const latency = await timed(`${url}/api/bees`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      done.push({ at: performance.now(), latency })
    }
  }))
  return done
}

/** Publishes a second, the mean over the completions of one slice of the run. */
function rateOf (slice: Array<{ at: number }>): number {
  const first = slice[0]?.at ?? 0
  const last = slice.at(-1)?.at ?? 0
  return last > first ? (slice.length - 1) / ((last - first) / 1000) : 0
}

async function samples (count: number, url: (i: number) => string): Promise<number[]> {
  const found: number[] = []
  for (let i = 0; i < count; i++) found.push(await timed(url(i)))
  return found
}

/**
 * The catalog at scale (issue 25): seeds the catalog with SQL (COPY on PostgreSQL), publishes a tenth of it through
 * the API with 8 publishers at once, and reports each row of the goal table it measures. Returns the exit code:
 * 1 when publishing is not flat or the memory bound is passed.
 */
export async function catalogBench (quick: boolean, dir: string, nodeFlags: string[] = []): Promise<number> {
  const postgresUrl = isPostgresUrl(process.env.DATABASE_URL) ? process.env.DATABASE_URL : null
  const size = quick ? 2_000 : postgresUrl === null ? 10_000 : 100_000
  const published = Math.max(PUBLISHERS * 10, Math.round(size / 10))
  const schema = postgresUrl === null ? null : await privateSchema(postgresUrl)
  const databaseUrl = schema?.url ?? join(dir, 'catalog.db')
  const env = { EGRESS_ALLOWLIST: '127.0.0.1', PUBLISHER_MAX_BEES: String(size), PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '0' }
  const rows: Row[] = []
  try {
    console.error(`… catalog bench: ${size} Bees on ${postgresUrl === null ? 'SQLite' : 'PostgreSQL'}`)
    const empty = await startService({ name: 'catalog-empty', databaseUrl, dir, env })
    const emptyReady = await readyMs(empty)
    const emptyRss = rssMb(empty.pid)
    const seeder = await createPublisher(empty.url, 'seeder')
    const keys = await Promise.all(Array.from({ length: PUBLISHERS }, async (_, i) => (await createPublisher(empty.url, `publisher${i}`)).key))
    await empty.stop()

    const seededAt = performance.now()
    await seedCatalog(databaseUrl, SECRETS_KEY, seeder.id, size - published)
    console.error(`… seeded ${size - published} Bees in ${((performance.now() - seededAt) / 1000).toFixed(1)} s`)
    const service = await startService({ name: 'catalog-full', databaseUrl, dir, env, nodeFlags })
    const fullReady = await readyMs(service)
    rows.push({ measure: 'start to /ready, empty / full', value: `${ms(emptyReady)} / ${ms(fullReady)}`, goal: '≤ 1 s, the same as empty', holds: fullReady <= 1000 })

    const done = await publishAll(service.url, keys, published)
    const tenth = Math.max(2, Math.floor(done.length / 10))
    const [firstRate, lastRate] = [rateOf(done.slice(0, tenth)), rateOf(done.slice(-tenth))]
    const overall = rateOf(done)
    const publishP99 = p99(done.map((entry) => entry.latency))
    const rateGoal = postgresUrl === null ? 150 : 300
    rows.push({ measure: `publish through the API, ${PUBLISHERS} publishers: last 10 % / first 10 %`, value: `${lastRate.toFixed(0)}/s / ${firstRate.toFixed(0)}/s = ${(lastRate / firstRate).toFixed(2)}×`, goal: `flat (≥ ${FLAT_RATIO}×)`, holds: lastRate >= FLAT_RATIO * firstRate })
    rows.push({ measure: 'publish rate, p99 of one publish', value: `${overall.toFixed(0)}/s, ${ms(publishP99)}`, goal: `≥ ${rateGoal}/s${postgresUrl === null ? '' : ', p99 ≤ 50 ms'}`, holds: overall >= rateGoal && (postgresUrl === null || publishP99 <= 50) })

    const seeded = size - published
    const discovery = await samples(200, (i) => `${service.url}/api/bees?limit=100&category=${['data', 'geo', 'media', 'finance'][i % 4]}`)
    const search = await samples(200, (i) => `${service.url}/api/bees?q=${encodeURIComponent(`${seedText(i).name.split(' ').slice(0, 2).join(' ')}`)}`)
    rows.push({ measure: 'discovery page (filtered) p99 / ranked search p99', value: `${ms(p99(discovery))} / ${ms(p99(search))}`, goal: '≤ 20 ms / ≤ 50 ms', holds: p99(discovery) <= 20 && p99(search) <= 50 })
    const detail = await samples(500, (i) => `${service.url}/api/bees/${seedText((i * 7919) % seeded).id}`)
    rows.push({ measure: 'detail p99', value: ms(p99(detail)), goal: '≤ 5 ms cached / ≤ 20 ms not', holds: p99(detail) <= 20 })
    const rss = rssMb(service.pid)
    rows.push({ measure: 'RSS with the full catalog (empty at start)', value: `${rss.toFixed(0)} MB (${emptyRss.toFixed(0)} MB)`, goal: `≤ ${RSS_LIMIT_MB} MB`, holds: rss <= RSS_LIMIT_MB })
    rows.push({ measure: 'first execute of an unloaded Bee; RSS after 10,000 distinct Bees called; propagation between instances; OpenAPI size', value: 'not measured by this run', goal: 'see issue 25', holds: null })
    await service.stop()

    console.log(`## Catalog at scale: ${size} Bees on ${postgresUrl === null ? 'SQLite' : 'PostgreSQL'} (${size - published} seeded with SQL, ${published} published through the API)\n`)
    console.log('| Measure | Measured | Goal | Holds |\n|---|---|---|---|')
    for (const row of rows) console.log(`| ${row.measure} | ${row.value} | ${row.goal} | ${row.holds === null ? '–' : row.holds ? 'yes' : 'no'} |`)
    // The gate .ci/run relies on: publishing stays flat and memory bounded (timings on a shared machine are reported, not gated).
    const gated = rows.filter((row) => row.measure.startsWith('publish through') || row.measure.startsWith('RSS'))
    const failed = gated.filter((row) => row.holds === false)
    for (const row of failed) console.error(`catalog bench: ${row.measure} does not hold: ${row.value} (goal ${row.goal})`)
    return failed.length === 0 ? 0 : 1
  } finally {
    await schema?.drop()
  }
}
