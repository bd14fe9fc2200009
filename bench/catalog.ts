import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { startFakeBee } from '../test/fake-bee.js'
import { INPUT_SCHEMA, OUTPUT_SCHEMA, seedCatalog, seedText } from './catalog-seed.js'
import type { Server } from './children.js'
import { isPostgresUrl, privateSchema } from './postgres.js'
import { createPublisher, SECRETS_KEY, startService } from './service.js'

/** One row of the issue's goal table: what was measured, its goal, and whether it holds (null: not applicable). */
interface Row { measure: string, value: string, goal: string, holds: boolean | null, gated?: boolean }

const PUBLISHERS = 8
const RSS_LIMIT_MB = 250
/**
 * What the gate fails on until the 250 MB goal holds: 2,000-Bee runs after the bounded cache measured 250, 251 and
 * 279 MB (the spread is garbage V8 has not collected yet), so gating the goal itself failed at random; 320 MB still
 * fails a return to holding the catalog in memory (400 MB at 10,000 Bees, 1,058 MB at 100,000). See docs/performance.md.
 */
const RSS_GATE_MB = 320
const FLAT_RATIO = 0.8
/**
 * What the gate fails on: four quick runs in a row on one quiet machine measured publishing 0.74, 0.81, 1.04 and
 * 0.90× (PATCH 0.85-1.04×) with nothing changed, so a gate at the goal fails one run in four; a lookup that scans
 * the catalog on each change makes it several times slower at 2,000 Bees than at none, and still fails this.
 */
const FLAT_GATE_RATIO = 0.5
/** Issue 25's 150 KB, plus this round's operations: versions, import and runs (see test/plugins/openapi.test.ts). */
const DOCUMENT_LIMIT_BYTES = 180_000
/** How long a change may take to reach another instance before the bench stops waiting and counts it as this. */
const PROPAGATION_GIVE_UP_MS = 10_000
/** A start that loads the whole catalog up front is measured, however long, rather than ending the run. */
const STARTUP_LIMIT_MS = 600_000

const percentile = (values: number[], share: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))] ?? 0
const p99 = (values: number[]) => percentile(values, 0.99)
const p50 = (values: number[]) => percentile(values, 0.5)
const ms = (value: number) => `${value.toFixed(1)} ms`
const signedMs = (value: number) => `${value < 0 ? '−' : '+'}${ms(Math.abs(value))}`
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

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

/** Starts to compare: one start differs from the next by as much as the 100 ms the row allows, so the median of these. */
const STARTS = 3

/** The median over STARTS starts of spawn to /ready; each instance is stopped once ready. */
async function medianReadyMs (start: () => Promise<Server>): Promise<number> {
  const starts: number[] = []
  for (let i = 0; i < STARTS; i++) {
    const server = await start()
    starts.push(await readyMs(server))
    await server.stop()
  }
  return p50(starts)
}

async function timed (url: string, init?: RequestInit): Promise<number> {
  const started = performance.now()
  const response = await fetch(url, init)
  await response.arrayBuffer()
  if (response.status >= 400) throw new Error(`${init?.method ?? 'GET'} ${url} answered ${response.status}`)
  return performance.now() - started
}

export const json = (key: string, method: string, body: unknown): RequestInit =>
  ({ method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

/** A Bee a publisher sends: it runs on the fake remote Bee, like the seeded ones. */
export const publishBody = (id: string, index: number, endpoint: string) => ({
  ...seedText(1_000_000 + index),
  id,
  endpoint,
  inputSchema: INPUT_SCHEMA,
  outputSchema: OUTPUT_SCHEMA,
  pricing: { type: 'free', costPerCall: 0 },
  config: { primaryServices: ['bench'] }
})

interface Completion { at: number, latency: number }

/** `count` jobs run by 8 workers at once, each with its own key; the completion time and latency of each, in order. */
async function concurrently (keys: string[], count: number, job: (i: number, key: string) => Promise<number>): Promise<Completion[]> {
  const done: Completion[] = []
  let next = 0
  await Promise.all(keys.map(async (key) => {
    for (let i = next++; i < count; i = next++) done.push({ latency: await job(i, key), at: performance.now() })
  }))
  return done
}

/** Per second, over the completions of one slice of the run. */
function rateOf (slice: Completion[]): number {
  const first = slice[0]?.at ?? 0
  const last = slice.at(-1)?.at ?? 0
  return last > first ? (slice.length - 1) / ((last - first) / 1000) : 0
}

/**
 * The rate the workers sustained over one run of changes: PUBLISHERS changes in flight over the median time of one
 * (Little's law), without the first and last PUBLISHERS, which start cold or finish with fewer workers left. Not a
 * span's rate: a tenth of a quick run is 20 changes in some 50 ms, where one pause (a WAL checkpoint, a collection)
 * moved the rate by a third; CI's quick run measured PATCH 0.74× and publish 0.69× that way with no code changed.
 */
const sustainedRate = (done: Completion[]) => PUBLISHERS * 1000 / p50(done.slice(PUBLISHERS, -PUBLISHERS).map((entry) => entry.latency))

/**
 * The rows of one kind of change through the API: flat (the rate sustained on the full catalog against the same
 * number of changes on the empty one, each in a fresh instance), its rate and p99 on the full catalog.
 */
function changeRows (what: string, empty: Completion[], full: Completion[], size: number, rateGoal: number, p99Goal: number | null): Row[] {
  const [emptyRate, fullRate] = [sustainedRate(empty), sustainedRate(full)]
  const overall = rateOf(full)
  const latency = p99(full.map((entry) => entry.latency))
  const ratio = `${(fullRate / emptyRate).toFixed(2)}×`
  return [
    {
      measure: `${what} through the API, ${PUBLISHERS} publishers: ${full.length} at ${size.toLocaleString('en')} Bees / ${empty.length} at none`,
      value: `${fullRate.toFixed(0)}/s / ${emptyRate.toFixed(0)}/s = ${ratio}`,
      goal: `flat (≥ ${FLAT_RATIO}×)`,
      holds: fullRate >= FLAT_RATIO * emptyRate
    },
    {
      measure: `${what}, the regression bound CI gates until the goal above holds on every run`,
      value: ratio,
      goal: `≥ ${FLAT_GATE_RATIO}×`,
      holds: fullRate >= FLAT_GATE_RATIO * emptyRate,
      gated: true
    },
    {
      measure: `${what} rate, p99 of one ${what}`,
      value: `${overall.toFixed(0)}/s, ${ms(latency)}`,
      goal: `≥ ${rateGoal}/s${p99Goal === null ? '' : `, p99 ≤ ${p99Goal} ms`}`,
      holds: overall >= rateGoal && (p99Goal === null || latency <= p99Goal)
    }
  ]
}

/** `count` Bees published through the API by PUBLISHERS publishers at once, then each changed by its owner. */
async function publishAndPatch (
  url: string, keys: string[], prefix: string, count: number, endpoint: string, seed: number
): Promise<[Completion[], Completion[]]> {
  const owners: string[] = []
  const published = await concurrently(keys, count, async (i, key) => {
    owners[i] = key
    return await timed(`${url}/api/bees`, json(key, 'POST', publishBody(`${prefix}-${i}`, seed + i, endpoint)))
  })
  const patched = await concurrently(keys, count, async (i) =>
    await timed(`${url}/api/bees/${prefix}-${i}`, json(owners[i] as string, 'PATCH', { description: `Changed by the bench: ${seedText(seed + i).description}` })))
  return [published, patched]
}

async function samples (count: number, url: (i: number) => string, init?: (i: number) => RequestInit): Promise<number[]> {
  const found: number[] = []
  for (let i = 0; i < count; i++) found.push(await timed(url(i), init?.(i)))
  return found
}

async function documentBytes (url: string): Promise<number> {
  const response = await fetch(`${url}/openapi/openapi.json`)
  return (await response.arrayBuffer()).byteLength
}

/** Why a start failed, in one line for the table: the server's own message when its log says one. */
function startFailure (error: unknown): string {
  const text = String((error as Error).message)
  const logged = /"msg":"([^"]+)".*$|"message":"([^"]{1,160})/.exec(text)
  return (logged?.[2] ?? logged?.[1] ?? text.split('\n')[0] ?? '').replace(/\|/g, '/')
}

/** From the answer on one instance until another serves what `served` looks for: polled every 5 ms. */
async function until (served: () => Promise<boolean>): Promise<number> {
  const started = performance.now()
  while (!await served()) {
    if (performance.now() - started > PROPAGATION_GIVE_UP_MS) break
    await sleep(5)
  }
  return performance.now() - started
}

/**
 * A publish, a PATCH and a removal on instance A, each timed from A's answer until instance B (another process on
 * the same database) serves it: the detail appears, shows the new description, then answers 404.
 */
async function propagation (a: Server, b: Server, key: string, endpoint: string, count: number): Promise<number[]> {
  const delays: number[] = []
  const detail = async (id: string) => {
    const response = await fetch(`${b.url}/api/bees/${id}`)
    return { status: response.status, body: response.status === 200 ? await response.json() as { description: string } : null }
  }
  for (let i = 0; i < count; i++) {
    const id = `prop-${i}`
    await timed(`${a.url}/api/bees`, json(key, 'POST', publishBody(id, 2_000_000 + i, endpoint)))
    delays.push(await until(async () => (await detail(id)).status === 200))
    const description = `Changed on instance A, round ${i}.`
    await timed(`${a.url}/api/bees/${id}`, json(key, 'PATCH', { description }))
    delays.push(await until(async () => (await detail(id)).body?.description === description))
    const removed = await fetch(`${a.url}/api/bees/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } })
    if (removed.status !== 204) throw new Error(`DELETE /api/bees/${id} answered ${removed.status}`)
    delays.push(await until(async () => (await detail(id)).status === 404))
  }
  return delays
}

/**
 * The catalog at scale (issue 25): seeds the catalog with SQL (COPY on PostgreSQL), publishes and PATCHes a tenth
 * of it through the API with 8 publishers at once, reads and executes it, and reports every row of the issue's goal
 * table with its goal and whether it holds. Every Bee runs on one fake remote Bee on 127.0.0.1 (test/fake-bee.ts).
 * Returns the exit code: 1 when a gated row misses (publishing not flat, the memory bound passed, the document
 * over its size or not the same as empty).
 */
export async function catalogBench (quick: boolean, dir: string, nodeFlags: string[] = []): Promise<number> {
  const postgresUrl = isPostgresUrl(process.env.DATABASE_URL) ? process.env.DATABASE_URL : null
  const size = quick ? 2_000 : postgresUrl === null ? 10_000 : 100_000
  const published = Math.max(PUBLISHERS * 10, Math.round(size / 10))
  // As many again are published on the empty catalog first, to compare with.
  const seeded = size - 2 * published
  // The issue's 10,000 distinct Bees called, scaled down with the catalog in quick mode.
  const called = Math.min(size, quick ? 1_000 : 10_000)
  const schema = postgresUrl === null ? null : await privateSchema(postgresUrl)
  const databaseUrl = schema?.url ?? join(dir, 'catalog.db')
  const env = { EGRESS_ALLOWLIST: '127.0.0.1', PUBLISHER_MAX_BEES: String(size), PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '0' }
  const backend = postgresUrl === null ? 'SQLite' : 'PostgreSQL'
  const fake = await startFakeBee()
  // The fake keeps every call it receives: the bench needs none of them, and 10,000 would only grow the runner.
  const forget = setInterval(() => { fake.calls.length = 0 }, 1000)
  const rows: Row[] = []
  // Each row is printed as soon as it is measured: a later step that fails (a start that never answers) loses none.
  const report = (row: Row) => {
    rows.push(row)
    console.log(`| ${row.measure} | ${row.value} | ${row.goal} | ${row.holds === null ? '–' : row.holds ? 'yes' : '**no**'} |`)
  }
  try {
    console.error(`… catalog bench: ${size} Bees on ${backend}`)
    console.log(`## Catalog at scale: ${size.toLocaleString('en')} Bees on ${backend} (${seeded.toLocaleString('en')} seeded with SQL, ` +
      `${(2 * published).toLocaleString('en')} published through the API, half before the seeding)\n`)
    console.log('| Measure | Measured | Goal | Holds |\n|---|---|---|---|')
    const migrating = await startService({ name: 'catalog-migrate', databaseUrl, dir, env })
    const seeder = await createPublisher(migrating.url, 'seeder')
    const keys = await Promise.all(Array.from({ length: PUBLISHERS }, async (_, i) => (await createPublisher(migrating.url, `publisher${i}`)).key))
    await migrating.stop()
    // Started again on the migrated, empty catalog: the start-up to compare with is not the first one's migrations.
    const emptyReady = await medianReadyMs(async () => await startService({ name: 'catalog-empty', databaseUrl, dir, env }))
    const empty = await startService({ name: 'catalog-empty', databaseUrl, dir, env })
    await readyMs(empty)
    const emptyRss = rssMb(empty.pid)
    const emptyDocument = await documentBytes(empty.url)
    console.error(`… publishing ${published} Bees on the empty catalog, then changing each, through the API`)
    const [emptyPublished, emptyPatched] = await publishAndPatch(empty.url, keys, 'early', published, fake.url, 3_000_000)
    await empty.stop()

    const seededAt = performance.now()
    await seedCatalog(databaseUrl, SECRETS_KEY, { ownerId: seeder.id, endpoint: fake.url, count: seeded })
    console.error(`… seeded ${seeded} Bees in ${((performance.now() - seededAt) / 1000).toFixed(1)} s`)
    const service = await startService({ name: 'catalog-full', databaseUrl, dir, env, nodeFlags, startupLimitMs: STARTUP_LIMIT_MS })
    await readyMs(service)

    console.error(`… publishing ${published} Bees on the full catalog, then changing each, through the API`)
    const [fullPublished, fullPatched] = await publishAndPatch(service.url, keys, 'pub', published, fake.url, 0)
    const rateGoal = postgresUrl === null ? 150 : 300
    const p99Goal = postgresUrl === null ? null : 50
    changeRows('publish', emptyPublished, fullPublished, size - published, rateGoal, p99Goal).forEach(report)
    changeRows('PATCH', emptyPatched, fullPatched, size, rateGoal, p99Goal).forEach(report)

    // Seeded Bees in an order unrelated to their ids (7919 is prime to every seeded count), each used by one row only:
    // a Bee this instance has not loaded is one nothing has asked for yet.
    const untouched = (k: number) => seedText((k * 7919) % seeded).id
    let cursor = 0
    const take = (count: number) => Array.from({ length: count }, () => untouched(cursor++))

    console.error('… discovery, search and detail')
    const categories = ['data', 'geo', 'media', 'finance']
    const discovery = await samples(200, (i) => `${service.url}/api/bees${i % 2 === 0 ? '' : `?category=${categories[i % 4]}`}`)
    const search = await samples(200, (i) => `${service.url}/api/bees?q=${encodeURIComponent(seedText(i * 31).name.split(' ').slice(0, 2).join(' '))}`)
    report({ measure: 'discovery page (default size; a category filter every other) p99 / ranked search (`?q=`, two words) p99', value: `${ms(p99(discovery))} / ${ms(p99(search))}`, goal: '≤ 20 ms / ≤ 50 ms', holds: p99(discovery) <= 20 && p99(search) <= 50 })
    const fresh = take(300)
    const notCached = await samples(fresh.length, (i) => `${service.url}/api/bees/${fresh[i]}`)
    const cached = await samples(500, (i) => `${service.url}/api/bees/${fresh[i % 50]}`)
    report({ measure: 'detail p99, Bee cached on this instance / not cached (first read)', value: `${ms(p99(cached))} / ${ms(p99(notCached))}`, goal: '≤ 5 ms / ≤ 20 ms', holds: p99(cached) <= 5 && p99(notCached) <= 20 })

    console.error('… executing Bees: warm, first calls, then distinct Bees until the memory row')
    const execute = (id: string): [string, RequestInit] =>
      [`${service.url}/api/bees/${id}/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"buzz"}' }]
    const [warmBee] = take(1) as [string]
    await timed(...execute(warmBee))
    const warm = await samples(200, () => execute(warmBee)[0], () => execute(warmBee)[1])
    const firsts = take(200)
    const first = await samples(firsts.length, (i) => execute(firsts[i] as string)[0], (i) => execute(firsts[i] as string)[1])
    const [extraP50, extraP99] = [p50(first) - p50(warm), p99(first) - p99(warm)]
    report({
      measure: 'first execute of a Bee this instance has not loaded, over the warm path (p50 / p99; holds on p50, the tail is the machine\'s noise as much)',
      value: `${signedMs(extraP50)} / ${signedMs(extraP99)} (warm ${ms(p50(warm))} / ${ms(p99(warm))})`,
      goal: '≤ 20 ms extra',
      holds: extraP50 <= 20
    })
    // Distinct from the warm Bee and the first calls: those read in detail, then untouched ones, then the published.
    const rest = called - 1 - firsts.length
    const others = [...fresh, ...take(Math.max(0, Math.min(rest, seeded - cursor))), ...Array.from({ length: published }, (_, i) => `pub-${i}`)].slice(0, rest)
    await concurrently(keys, others.length, async (i) => await timed(...execute(others[i] as string)))
    const rss = rssMb(service.pid)
    report({
      measure: `RSS with the full catalog after ${(1 + firsts.length + others.length).toLocaleString('en')} distinct Bees called (empty at start)`,
      value: `${rss.toFixed(0)} MB (${emptyRss.toFixed(0)} MB)`,
      goal: `≤ ${RSS_LIMIT_MB} MB`,
      holds: rss <= RSS_LIMIT_MB
    })
    report({
      measure: 'RSS, the regression bound CI gates until the goal above holds',
      value: `${rss.toFixed(0)} MB`,
      goal: `≤ ${RSS_GATE_MB} MB`,
      holds: rss <= RSS_GATE_MB,
      gated: true
    })

    const fullDocument = await documentBytes(service.url)
    report({
      measure: 'OpenAPI document (/openapi/openapi.json), full catalog / empty',
      value: `${kb(fullDocument)} / ${kb(emptyDocument)}`,
      goal: `≤ ${kb(DOCUMENT_LIMIT_BYTES)}, the same at any size`,
      holds: fullDocument <= DOCUMENT_LIMIT_BYTES && fullDocument === emptyDocument,
      gated: true
    })

    if (postgresUrl === null) {
      report({ measure: 'a publish, PATCH or removal on one instance served by another', value: 'one instance (SQLite)', goal: '–', holds: null })
    } else {
      console.error('… propagation between two instances on one database')
      const rounds = quick ? 10 : 30
      const row = { measure: `a publish, PATCH or removal on one instance served by another (${rounds} of each; p50 / p99)`, goal: 'p99 ≤ 1 s' }
      try {
        const other = await startService({ name: 'catalog-other', databaseUrl, dir, env, startupLimitMs: STARTUP_LIMIT_MS })
        await readyMs(other)
        const delays = await propagation(service, other, keys[0] as string, fake.url, rounds)
        await other.stop()
        report({ ...row, value: `${ms(p50(delays))} / ${ms(p99(delays))}`, holds: p99(delays) <= 1000 })
      } catch (error) {
        report({ ...row, value: `the second instance did not start (${startFailure(error)})`, holds: false })
      }
    }
    await service.stop()

    const startRow = { measure: `start to /ready (spawn of dist/bundle/server.js), full catalog / empty, median of ${STARTS}`, goal: '≤ 1 s, the same as empty' }
    try {
      const fullReady = await medianReadyMs(async () => await startService({ name: 'catalog-restart', databaseUrl, dir, env, startupLimitMs: STARTUP_LIMIT_MS }))
      // "The same as empty": within 100 ms of it, what one start differs from the next on this machine.
      report({ ...startRow, value: `${ms(fullReady)} / ${ms(emptyReady)}`, holds: fullReady <= 1000 && fullReady - emptyReady <= 100 })
    } catch (error) {
      report({ ...startRow, value: `did not start (${startFailure(error)}) / ${ms(emptyReady)}`, holds: false })
    }

    console.log('\nGated (the exit code): publishing and PATCH within their regression bound, RSS under its regression bound, the document\'s size. Timings on a shared machine are reported, not gated.')
    const failed = rows.filter((row) => row.gated === true && row.holds === false)
    for (const row of failed) console.error(`catalog bench: ${row.measure} does not hold: ${row.value} (goal ${row.goal})`)
    return failed.length === 0 ? 0 : 1
  } finally {
    clearInterval(forget)
    await fake.close()
    await schema?.drop()
  }
}
