import { parseArgs } from 'node:util'
import type { LoadSettings } from './load.js'
import { isPostgresUrl } from './postgres.js'

export interface BenchOptions {
  quick: boolean
  /** The catalog at scale instead of the request scenarios (see bench/catalog.ts). */
  catalog: boolean
  /** Queued runs of an async Bee drained, and a run read under load, instead of the request scenarios (see bench/runs.ts). */
  runs: boolean
  /** With runs: how many runs to queue and drain on each database. */
  runCount: number
  /** Only the rows of bench/baseline.json, in many short rounds, failing below its floor (see bench/gate.ts). */
  gate: boolean
  load: LoadSettings
  coldStarts: number
  /** The fixed offered load (req/s) at which latency is measured below saturation. */
  rate: number
  /** Only the scenarios whose title contains one of these words (for profiling one load); null for all. */
  only: string[] | null
  /** Runs the service under --cpu-prof, writing its profile here. */
  cpuProfDir: string | null
  /** The invocation, for the results file. */
  command: string
}

/** The gate's rounds: many short ones, so that a burst of other work on the machine spoils a round, not the figure. */
export const GATE_ROUNDS = 9
export const GATE_SECONDS = 1

export const USAGE = `Usage: npm run bench -- [--quick] [--rounds N] [--duration SECONDS] [--connections N] [--rate N]
                        [--only WORD[,WORD…]] [--cpu-prof DIR] [--catalog] [--gate] [--runs [--count N]]
  --rate         the fixed offered load, in req/s, at which latency is measured (default 500)
  --quick        1 round of 1.5 s per side and 2 cold starts; writes bench/RESULTS.quick.md
  --only         run only the scenarios whose title contains a word (e.g. --only paid); writes no results file
  --cpu-prof     run the service with node --cpu-prof into DIR (skews timings); writes no results file
  --gate         the regression gate: only the rows of bench/baseline.json, ${GATE_ROUNDS} interleaved rounds of ${GATE_SECONDS} s per
                 side, each row's median round ratio against its floor; exits 1 if one falls below; writes no results file
  --catalog      the catalog at scale (issue 25): 100,000 Bees on PostgreSQL, 10,000 on SQLite (2,000 with --quick), seeded
                 with SQL, a tenth published and PATCHed through the API by 8 publishers, every row of the issue's table;
                 fails if publishing or PATCH slows, RSS passes 250 MB, or the OpenAPI document passes 180 KB or grows
  --runs         runs of a free async Bee (issue 45): --count N (default 10,000) queued with Prefer: respond-async while
                 the fake upstream holds its answers, then drained, on SQLite and (with DATABASE_URL) on PostgreSQL;
                 then GET /api/runs/{id} of a finished run under load; then 1,000 open streams of a stream Bee (RSS
                 per stream, relay latency); --only drain or --only streams runs one; writes its section of bench/RESULTS.md
With DATABASE_URL=postgres://… in the environment, the paid scenario also runs on PostgreSQL, against a bare pg
client, with other pool sizes and with two instances (the last two not with --quick).`

function positive (name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const number = Number(value)
  if (!Number.isFinite(number) || number <= 0) throw new Error(`--${name} must be a positive number, got ${value}`)
  return number
}

/** Host and database only: the URL may hold a password, and the results file is committed. */
function redacted (url: string): string {
  const { protocol, host, pathname } = new URL(url)
  return `${protocol}//…@${host}${pathname}`
}

export function parseOptions (argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      catalog: { type: 'boolean', default: false },
      gate: { type: 'boolean', default: false },
      runs: { type: 'boolean', default: false },
      count: { type: 'string' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      connections: { type: 'string' },
      rate: { type: 'string' },
      only: { type: 'string' },
      'cpu-prof': { type: 'string' }
    }
  })
  const gate = values.gate === true
  const quick = values.quick === true || gate
  const invocation = process.env.npm_lifecycle_event === 'bench'
    ? ['npm run bench', ...(argv.length > 0 ? ['--', ...argv] : [])].join(' ')
    : ['tsx bench/run.ts', ...argv].join(' ')
  const databaseUrl = process.env.DATABASE_URL
  return {
    quick,
    catalog: values.catalog === true,
    runs: values.runs === true,
    runCount: Math.round(positive('count', values.count, 10_000)),
    gate,
    load: {
      connections: Math.round(positive('connections', values.connections, 50)),
      rounds: Math.round(positive('rounds', values.rounds, gate ? GATE_ROUNDS : quick ? 1 : 3)),
      seconds: positive('duration', values.duration, gate ? GATE_SECONDS : quick ? 1.5 : 5),
      warmupSeconds: quick ? 0.5 : 1
    },
    // The gate holds the start-up multiple: a median of five, as a full run takes.
    coldStarts: quick && !gate ? 2 : 5,
    rate: Math.round(positive('rate', values.rate, 500)),
    only: values.only === undefined ? null : values.only.split(',').filter((word) => word !== ''),
    cpuProfDir: values['cpu-prof'] ?? null,
    command: isPostgresUrl(databaseUrl) ? `DATABASE_URL=${redacted(databaseUrl)} ${invocation}` : invocation
  }
}
