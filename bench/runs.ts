import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import Database from 'better-sqlite3'
import pg from 'pg'
import { startFakeBee } from '../test/fake-bee.js'
import { json, publishBody } from './catalog.js'
import { fire, type Side } from './load.js'
import type { BenchOptions } from './options.js'
import { isPostgresUrl, privateSchema } from './postgres.js'
import { machine, RUNS_HEADING, runsSection } from './report.js'
import { createPublisher, startService } from './service.js'
import { openStreamsBench, STREAMS_HEADING, streamsSection } from './streams.js'

const BEE_ID = 'bench-async'
/** A run not ended this long after the upstream let go fails the bench rather than hanging it. */
const DRAIN_LIMIT_MS = 30 * 60_000
const STATUS_POLL_MS = 50

/** One database's figures. */
export interface Drained {
  backend: 'SQLite' | 'PostgreSQL'
  count: number
  /** From the first POST to the last 202. */
  queueMs: number
  /** From the upstream letting go until every run had ended. */
  drainMs: number
  /** How many ended in each status (all `succeeded` when the run is sound). */
  statuses: Record<string, number>
  upstreamCalls: number
  read: Side
}

/** Each run's status counted in the database itself: polling 10,000 runs through the API would load the service it measures. */
async function statusCounter (databaseUrl: string): Promise<{ count (): Promise<Record<string, number>>, close (): Promise<void> }> {
  const query = 'SELECT status, count(*) AS n FROM runs GROUP BY status'
  const tally = (rows: Array<{ status: string, n: number | string }>) => Object.fromEntries(rows.map(({ status, n }) => [status, Number(n)]))
  if (isPostgresUrl(databaseUrl)) {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    return { count: async () => tally((await client.query(query)).rows), close: async () => { await client.end() } }
  }
  const database = new Database(databaseUrl, { readonly: true })
  const statement = database.prepare(query)
  return { count: async () => tally(statement.all() as Array<{ status: string, n: number }>), close: async () => { database.close() } }
}

const endedOf = (statuses: Record<string, number>) =>
  Object.entries(statuses).reduce((sum, [status, n]) => status === 'queued' || status === 'running' ? sum : sum + n, 0)

/** `count` calls to the Bee with Prefer: respond-async, `connections` at a time; each must be a 202. The last run's Location. */
async function queueRuns (url: string, count: number, connections: number): Promise<string> {
  let next = 0
  let location = ''
  await Promise.all(Array.from({ length: connections }, async () => {
    while (next < count) {
      next++
      const response = await fetch(`${url}/api/bees/${BEE_ID}/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', prefer: 'respond-async' },
        body: '{"text":"buzz"}'
      })
      await response.arrayBuffer()
      if (response.status !== 202) throw new Error(`POST execute with Prefer: respond-async answered ${response.status}`)
      location = response.headers.get('location') ?? ''
    }
  }))
  return location
}

/**
 * One database: a free async Bee on a fake upstream on 127.0.0.1 that holds every answer until told, `count` runs
 * queued behind it, then the upstream let go and timed until every run has ended; then GET of one finished run under
 * autocannon. Holding the answers makes the backlog whole before the drain is timed (RUN_CONCURRENCY runs wait on
 * the upstream, the rest queued), so the rate is the queue's and the workers', not the enqueuing's.
 */
async function drain (backend: Drained['backend'], databaseUrl: string, options: BenchOptions, dir: string): Promise<Drained> {
  const { runCount: count, load } = options
  const fake = await startFakeBee()
  let letGo = () => {}
  const held = new Promise<void>((resolve) => { letGo = resolve })
  fake.beforeAnswer = async () => { await held }
  const service = await startService({ name: `runs-${backend}`, databaseUrl, dir, env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const counter = await statusCounter(databaseUrl)
  try {
    const { key } = await createPublisher(service.url, 'runs')
    const published = await fetch(`${service.url}/api/bees`, json(key, 'POST', {
      ...publishBody(BEE_ID, 0, fake.url),
      config: { primaryServices: ['bench'], executionMode: 'async' }
    }))
    if (published.status !== 201) throw new Error(`publishing the async Bee answered ${published.status}: ${await published.text()}`)

    console.error(`… ${backend}: queueing ${count} runs`)
    const queuedAt = performance.now()
    const location = await queueRuns(service.url, count, load.connections)
    const queueMs = performance.now() - queuedAt

    console.error(`… ${backend}: draining them`)
    const drainedAt = performance.now()
    letGo()
    let statuses = await counter.count()
    while (endedOf(statuses) < count) {
      if (performance.now() - drainedAt > DRAIN_LIMIT_MS) throw new Error(`${backend}: ${endedOf(statuses)} of ${count} runs ended within ${DRAIN_LIMIT_MS} ms`)
      await sleep(STATUS_POLL_MS)
      statuses = await counter.count()
    }
    const drainMs = performance.now() - drainedAt

    const run = await (await fetch(service.url + location)).json() as { status: string }
    if (run.status !== 'succeeded') throw new Error(`${backend}: GET ${location.replace(/key=.*/, 'key=…')} answered a run ${run.status}`)
    console.error(`… ${backend}: GET /api/runs/{id} under load`)
    const target = { url: service.url + location, method: 'GET' as const }
    await fire(target, load.warmupSeconds, load.connections)
    const read = await fire(target, load.seconds * load.rounds, load.connections)
    return { backend, count, queueMs, drainMs, statuses, upstreamCalls: fake.calls.length, read }
  } finally {
    await counter.close()
    await service.stop()
    await fake.close()
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const perSecond = (count: number, ms: number) => `${Math.round(count / (ms / 1000)).toLocaleString('en')}/s`

/** What is wrong with one database's figures: a run that did not succeed, or an upstream called other than once per run. */
export function problemsOf ({ backend, count, statuses, upstreamCalls, read }: Drained): string[] {
  const found: string[] = []
  if (statuses.succeeded !== count) found.push(`${backend}: ${statuses.succeeded ?? 0} of ${count} runs succeeded (${JSON.stringify(statuses)})`)
  if (upstreamCalls !== count) found.push(`${backend}: the upstream was called ${upstreamCalls} times for ${count} runs`)
  if (read.non2xx > 0 || read.errors > 0) found.push(`${backend}: GET /api/runs/{id} had ${read.non2xx} non-2xx answers and ${read.errors} errors`)
  return found
}

function section (options: BenchOptions, measured: Drained[], skipped: string[], loadAtStart: number[], problems: string[]): string {
  const { load, runCount } = options
  const cells = (cell: (one: Drained) => string) => measured.map(cell).join(' | ')
  const average = (values: number[]) => values.map((value) => value.toFixed(1)).join(' / ')
  return [
    RUNS_HEADING,
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machine()}; load average ${average(loadAtStart)} at the start, ${average(loadavg())} at the end (1 / 5 / 15 min; other work on the machine included)`,
    `- Command: \`${options.command}\``,
    `- ${runCount.toLocaleString('en')} runs of a free async Bee (no wallet: each run read with its run key), queued by ${load.connections} ` +
      'callers at once with `Prefer: respond-async` while the fake upstream (test/fake-bee.ts, 127.0.0.1) holds every answer; ' +
      'then it answers at once, and the drain is timed until every run has ended (counted in the database every ' +
      `${STATUS_POLL_MS} ms). The service's defaults: RUN_CONCURRENCY 16, RUN_POLL_MS 1000. GET of one succeeded run: ` +
      `autocannon, ${load.connections} connections, ${load.seconds * load.rounds} s after ${load.warmupSeconds} s of warm-up.`,
    '',
    `| Measure | ${measured.map((one) => one.backend).join(' | ')} |`,
    `|---|${measured.map(() => '---|').join('')}`,
    `| ${runCount.toLocaleString('en')} runs queued (202s): time, rate | ${cells((one) => `${seconds(one.queueMs)}, ${perSecond(one.count, one.queueMs)}`)} |`,
    `| ${runCount.toLocaleString('en')} queued runs drained (all succeeded): time, runs/s | ${cells((one) => `${seconds(one.drainMs)}, ${perSecond(one.count, one.drainMs)}`)} |`,
    `| GET /api/runs/{id} (succeeded) under load: req/s, p50 / p99 ms | ${cells((one) => `${Math.round(one.read.rps).toLocaleString('en')}, ${one.read.p50} / ${one.read.p99}`)} |`,
    ...(skipped.length === 0 ? [] : ['', ...skipped.map((reason) => `- Not run: ${reason}`)]),
    ...(problems.length === 0 ? [] : ['', '### Problems (figures affected are not meaningful)', '', ...problems.map((problem) => `- ${problem}`)])
  ].join('\n') + '\n'
}

/**
 * `text` (bench/RESULTS.md) with its runs section, its last, in place of the one before: the drains' part, then the
 * open streams' subsection; a part not measured this time (null) is kept as it was.
 */
export function withRunsSection (text: string, drains: string | null, streams: string | null): string {
  const section = runsSection(text)
  const rest = text.slice(0, text.length - section.length).trimEnd()
  const split = section.indexOf(`\n${STREAMS_HEADING}`)
  const kept = { drains: (split < 0 ? section : section.slice(0, split)).trim(), streams: split < 0 ? '' : section.slice(split).trim() }
  const parts = [rest, drains?.trim() ?? kept.drains, streams?.trim() ?? kept.streams].filter((part) => part !== '')
  return `${parts.join('\n\n')}\n`
}

function writeSection (drains: string | null, streams: string | null): string {
  const file = fileURLToPath(new URL('RESULTS.md', import.meta.url))
  writeFileSync(file, withRunsSection(existsSync(file) ? readFileSync(file, 'utf8') : '', drains, streams))
  return file
}

/** The drains on SQLite, and on PostgreSQL when DATABASE_URL names one: their part of the section, and their problems. */
async function drains (options: BenchOptions, dir: string): Promise<{ markdown: string, problems: string[] }> {
  const loadAtStart = loadavg()
  const measured = [await drain('SQLite', join(dir, 'runs.db'), options, dir)]
  const skipped: string[] = []
  const postgresUrl = process.env.DATABASE_URL
  if (isPostgresUrl(postgresUrl)) {
    const schema = await privateSchema(postgresUrl)
    try {
      measured.push(await drain('PostgreSQL', schema.url, options, dir))
    } finally {
      await schema.drop()
    }
  } else {
    skipped.push('PostgreSQL: DATABASE_URL in the bench\'s environment is not a postgres:// URL')
  }
  const problems = measured.flatMap(problemsOf)
  return { markdown: section(options, measured, skipped, loadAtStart, problems), problems }
}

const loadNow = () => loadavg().map((value) => value.toFixed(1)).join(' / ')

/**
 * Issue 45's runs and streams: `--count` runs drained on SQLite, and on PostgreSQL (pg-boss) when DATABASE_URL names
 * one, and a finished run read under load; then OPEN_STREAMS streams of a stream Bee held open (bench/streams.ts).
 * `--only drain` or `--only streams` runs one of the two. Prints its section and writes it into bench/RESULTS.md (a
 * part not run is kept); exits 1 when a run did not succeed, the upstream was not called once per run, a read failed,
 * or a stream was refused, ended early or left its upstream open.
 */
export async function runsBench (options: BenchOptions, dir: string): Promise<number> {
  const wants = (word: string) => options.only === null || options.only.includes(word)
  const drained = wants('drain') ? await drains(options, dir) : null
  let streams: string | null = null
  let streamProblems: string[] = []
  if (wants('streams')) {
    const loadAtStart = loadNow()
    const figures = await openStreamsBench(dir)
    streams = streamsSection(figures, `${loadAtStart} at the start, ${loadNow()} at the end`)
    streamProblems = figures.problems
  }
  console.log([drained?.markdown, streams].filter((part) => part !== undefined && part !== null).join('\n'))
  console.error(`Written to ${writeSection(drained?.markdown ?? null, streams)}`)
  return [...drained?.problems ?? [], ...streamProblems].length === 0 ? 0 : 1
}
