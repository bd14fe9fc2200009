import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beeSpeed } from './bee-speed.js'
import { breakdown } from './breakdown.js'
import { catalogBench } from './catalog.js'
import { type Floors, floorsFor, gate, gateTable, hostModel, readBaseline, STARTUP_ROW } from './gate.js'
import { peakRssBytes, startServer, stopAll } from './children.js'
import { coldStart } from './cold-start.js'
import { type Comparison, compare, compareRuns, fire, fireTogether, type Target } from './load.js'
import { type BenchOptions, parseOptions, USAGE } from './options.js'
import { isPostgresUrl, privateSchema } from './postgres.js'
import { renderResults, type Results, runsSection } from './report.js'
import { runsBench } from './runs.js'
import { checkSameAnswer } from './same-answer.js'
import {
  BEES_PATH, DETAIL_PATH, paidCall, postgresScenario, PROXIED_BEE_ID, type Scenario, scenarios, SENTIMENT_BODY, SENTIMENT_PATH, SUMMARIZE_BODY, SUMMARIZE_PATH,
  WALLET_HEADER
} from './scenarios.js'
import { capture, fundedWallet, healthSettled, mintedToken, publishEcho, startService } from './service.js'

/** The service's default DATABASE_POOL_SIZE, which the bare pg baseline gets too. */
const POOL_SIZE = 10
/** Rounds of the Bee speed rows (bench/bee-speed.ts), each a batch of about 25 ms per side. */
const BEE_SPEED_ROUNDS = 21
const BEE_SPEED_QUICK_ROUNDS = 7
/** sentiment-analyzer's default price (PRICE_SENTIMENT_ANALYZER 0.001), which the bare pg baseline charges too. */
const SENTIMENT_PRICE_MICROS = 1000

const server = (name: string) => fileURLToPath(new URL(`servers/${name}`, import.meta.url))

function failures (scenario: string, side: string, { non2xx, errors, failedStatuses }: Comparison['service']): string[] {
  const found: string[] = []
  if (non2xx > 0) {
    const codes = Object.entries(failedStatuses).map(([code, count]) => `${count} × ${code}`).join(', ')
    found.push(`${scenario}: ${side} answered ${non2xx} non-2xx responses (${codes})`)
  }
  if (errors > 0) found.push(`${scenario}: ${side} had ${errors} connection errors or timeouts`)
  return found
}

function record (results: Results, title: string, baselineName: string, target: number | null, comparison: Comparison): void {
  results.scenarios.push({ title, baselineName, target, comparison })
  results.problems.push(...failures(title, 'Apiary', comparison.service), ...failures(title, 'the baseline', comparison.baseline))
}

async function measure (scenario: Scenario, options: BenchOptions, results: Results): Promise<void> {
  console.error(`… ${scenario.title}`)
  await checkSameAnswer(scenario)
  record(results, scenario.title, scenario.baselineName, scenario.target, await compare(scenario.service, scenario.baseline, options.load))
}

/** Latency when the load is a fixed rate well below saturation, as a service mostly runs, not only at its limit. */
async function latencyAt (title: string, target: Target, options: BenchOptions, results: Results): Promise<void> {
  const { rate, load } = options
  console.error(`… ${title} at ${rate} req/s`)
  const side = await fire(target, load.seconds * load.rounds, load.connections, rate)
  results.offered.push({ title, rate, side })
  results.problems.push(...failures(`${title} at ${rate} req/s`, 'Apiary', side))
}

const nodeFlagsOf = (options: BenchOptions) => options.cpuProfDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(options.cpuProfDir)}`]

const selected = (options: BenchOptions, title: string) =>
  options.only === null || options.only.some((word) => title.includes(word))

/**
 * The proxied-call row's servers: the echo upstream, bare Fastify proxying to it, and an instance of its own (so the
 * other rows' catalog stays the built-ins) with a free Bee published there, its upstream on 127.0.0.1, which only the
 * allow-list lets a Bee reach.
 */
async function proxiedCall (dir: string, nodeFlags: string[]): Promise<{ proxiedBee: string, bareProxy: string }> {
  const upstream = await startServer({ name: 'upstream-echo', args: [server('upstream-echo.mjs')], env: {}, logFile: join(dir, 'upstream-echo.log') })
  const bareProxy = await startServer({ name: 'bare-proxy', args: [server('bare-fastify-proxy.mjs')], env: { UPSTREAM_URL: upstream.url }, logFile: join(dir, 'bare-proxy.log') })
  const apiary = await startService({ name: 'apiary-proxied', databaseUrl: join(dir, 'proxied.db'), dir, nodeFlags, env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  await publishEcho(apiary.url, PROXIED_BEE_ID, upstream.url)
  return { proxiedBee: `${apiary.url}/api/bees/${PROXIED_BEE_ID}/execute`, bareProxy: `${bareProxy.url}/proxy` }
}

/** The PostgreSQL rows: the paid call against the database's own limit, then how throughput grows with the pool and with instances. */
async function onPostgres (postgresUrl: string, options: BenchOptions, dir: string, nodeFlags: string[], results: Results): Promise<void> {
  const title = 'paid execute (PostgreSQL): sentiment-analyzer, one sentence'
  const schema = await privateSchema(postgresUrl)
  const pool = (size: number) => ({ DATABASE_POOL_SIZE: String(size) })
  try {
    const main = await startService({ name: 'apiary-postgres', databaseUrl: schema.url, dir, nodeFlags, env: pool(POOL_SIZE) })
    const wallets = (count: number) => Promise.all(Array.from({ length: count }, () => fundedWallet(main.url)))
    const answerFile = join(dir, 'paid-answer.json')
    const [probe = ''] = await wallets(1)
    writeFileSync(answerFile, JSON.stringify(await capture(main.url + SENTIMENT_PATH, { method: 'POST', headers: { 'content-type': 'application/json', [WALLET_HEADER]: probe }, body: SENTIMENT_BODY })))
    // Each side pays with wallets of its own, as many as the other: the same row locks to wait on.
    for (const count of [1, options.load.connections]) {
      const [mine, theirs] = [await wallets(count), await wallets(count)]
      const barePg = await startServer({
        name: `bare-pg-${count}`,
        args: [server('bare-pg.mjs')],
        env: { DATABASE_URL: schema.url, ...pool(POOL_SIZE), WALLET_TOKENS: theirs.join(','), PRICE_MICROS: String(SENTIMENT_PRICE_MICROS), ANSWER_FILE: answerFile },
        logFile: join(dir, `bare-pg-${count}.log`)
      })
      await measure(postgresScenario(count === 1 ? `${title}, one wallet` : `${title}, ${count} wallets`, main.url, mine, barePg.url), options, results)
      await barePg.stop()
    }
    const many = await wallets(options.load.connections)
    const call = (url: string) => paidCall(url, many)
    const { connections } = options.load
    await latencyAt(`${title}, ${many.length} wallets`, call(main.url), options, results)
    if (options.quick) return
    // Pool sizes and a second instance, each against the default pool on one instance, interleaved.
    for (const size of [POOL_SIZE / 2, POOL_SIZE * 2]) {
      const other = await startService({ name: `apiary-postgres-pool-${size}`, databaseUrl: schema.url, dir, env: pool(size) })
      console.error(`… pool of ${size} against ${POOL_SIZE}`)
      record(results, `${title}, ${many.length} wallets, pool of ${size}`, `pool of ${POOL_SIZE} (the default)`, null,
        await compare(call(other.url), call(main.url), options.load))
      await other.stop()
    }
    const second = await startService({ name: 'apiary-postgres-second', databaseUrl: schema.url, dir, env: pool(POOL_SIZE) })
    console.error('… two instances against one')
    record(results, `${title}, ${many.length} wallets, two instances on one database`, 'one instance, the same connections', null, await compareRuns(
      (seconds) => fireTogether([call(main.url), call(second.url)], seconds, Math.max(1, Math.round(connections / 2))),
      (seconds) => fire(call(main.url), seconds, connections),
      options.load
    ))
  } finally {
    // Their pools' connections must be gone before the schema they use is dropped.
    await stopAll()
    await schema.drop()
  }
}

async function bench (options: BenchOptions, dir: string): Promise<Results> {
  const results: Results = {
    date: new Date(),
    command: options.command,
    load: options.load,
    scenarios: [],
    beeSpeed: [],
    offered: [],
    peakRssBytes: null,
    coldStart: null,
    breakdown: null,
    skipped: [],
    problems: []
  }
  const nodeFlags = nodeFlagsOf(options)
  // In this process, before any server starts: the Bees' own µs against their libraries'.
  results.beeSpeed = await beeSpeed((title) => selected(options, title), options.quick ? BEE_SPEED_QUICK_ROUNDS : BEE_SPEED_ROUNDS)

  const [service, metered] = await Promise.all([
    startService({ name: 'apiary', databaseUrl: join(dir, 'ledger.db'), dir, nodeFlags }),
    startService({ name: 'apiary-metered', databaseUrl: join(dir, 'metered.db'), dir, env: { METRICS_TOKEN: randomBytes(16).toString('hex') } })
  ])
  const walletToken = await fundedWallet(service.url)
  const paidHeaders = { 'content-type': 'application/json', [WALLET_HEADER]: walletToken }
  const responsesFile = join(dir, 'responses.json')
  const executions = {
    [SUMMARIZE_PATH]: await capture(service.url + SUMMARIZE_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: SUMMARIZE_BODY }),
    [SENTIMENT_PATH]: await capture(service.url + SENTIMENT_PATH, { method: 'POST', headers: paidHeaders, body: SENTIMENT_BODY })
  }
  // Discovery and detail are measured before any other run, so their bytes stay those captured here.
  await healthSettled(service.url, { 'text-summarizer': 1, 'sentiment-analyzer': 1 })
  writeFileSync(responsesFile, JSON.stringify({
    [BEES_PATH]: await capture(service.url + BEES_PATH),
    [DETAIL_PATH]: await capture(service.url + DETAIL_PATH),
    ...executions
  }))
  const rawHttp = await startServer({ name: 'raw-http', args: [server('raw-http.mjs')], env: { RESPONSES_FILE: responsesFile }, logFile: join(dir, 'raw-http.log') })
  const bareFastify = await startServer({ name: 'bare-fastify', args: [server('bare-fastify-replay.mjs')], env: { RESPONSES_FILE: responsesFile }, logFile: join(dir, 'bare-fastify.log') })
  const rawBee = await startServer({ name: 'raw-bee', args: [server('raw-http.mjs')], env: { RESPONSES_FILE: responsesFile, RUN_BEES: '1' }, logFile: join(dir, 'raw-bee.log') })
  const proxied = selected(options, 'proxied call') ? await proxiedCall(dir, nodeFlags) : { proxiedBee: '', bareProxy: '' }

  const endpoints = {
    service: service.url,
    metered: metered.url,
    meteredWalletToken: await fundedWallet(metered.url),
    rawHttp: rawHttp.url,
    bareFastify: bareFastify.url,
    rawBee: rawBee.url,
    walletToken,
    verificationToken: await mintedToken(service.url, walletToken),
    ...proxied
  }
  const all = scenarios(endpoints)
  for (const scenario of all) {
    if (selected(options, scenario.title)) await measure(scenario, options, results)
  }
  for (const scenario of all.filter((one) => !options.gate && /^(discovery|paid execute \(SQLite\): )/.test(one.title))) {
    if (selected(options, scenario.title)) await latencyAt(scenario.title, scenario.service, options, results)
  }
  results.peakRssBytes = peakRssBytes(service.pid)
  await stopAll()

  if (!options.quick && selected(options, 'breakdown')) {
    console.error('… breakdown: µs per request of each step, one connection')
    results.breakdown = await breakdown(dir, options.load.seconds, options.load.warmupSeconds)
  }

  if (selected(options, 'cold start')) {
    console.error(`… cold start (${options.coldStarts} spawns each)`)
    results.coldStart = await coldStart(
      options.coldStarts,
      (i) => startService({ name: `apiary-cold-${i}`, databaseUrl: join(dir, `cold-${i}.db`), dir }),
      () => startServer({ name: 'fastify-health', args: [server('bare-fastify.mjs')], env: {}, logFile: join(dir, 'fastify-health.log') })
    )
  }
  if (options.gate) return results
  const postgresUrl = process.env.DATABASE_URL
  if (!isPostgresUrl(postgresUrl)) {
    results.skipped.push('paid execute (PostgreSQL) and its scaling: DATABASE_URL in the bench\'s environment is not a postgres:// URL ' +
      '(run `DATABASE_URL=postgres://user@host:5432/db npm run bench` to include them)')
  } else if (selected(options, 'PostgreSQL')) {
    await onPostgres(postgresUrl, options, dir, nodeFlags, results)
  }
  return results
}

function resultsFile (options: BenchOptions): string | null {
  if (options.only !== null || options.cpuProfDir !== null || options.gate) return null
  return fileURLToPath(new URL(options.quick ? 'RESULTS.quick.md' : 'RESULTS.md', import.meta.url))
}

/**
 * The gate's verdict. A row that falls is measured again, in a second run with servers of its own, and fails only if
 * it falls again: on a noisy host unchanged code fell once in four runs (docs/performance.md, The regression gate), a
 * regression falls every time.
 */
async function gateHeld (floors: Floors, results: Results, options: BenchOptions, dir: string): Promise<number> {
  const rows = gate(floors, results.scenarios, results.coldStart)
  console.log(gateTable(rows, floors))
  const fell = rows.filter((row) => !row.held).map((row) => row.title)
  if (fell.length === 0) return 0
  console.error(`Regression gate: ${fell.join('; ')} fell below its floor; measuring it again with servers of its own.`)
  const again = await bench({ ...options, only: fell.map((title) => title === STARTUP_ROW ? 'cold start' : title) }, mkdtempSync(join(dir, 'again-')))
  const only = (limits: Record<string, number>) => Object.fromEntries(Object.entries(limits).filter(([title]) => fell.includes(title)))
  const second = { ...floors, ratios: only(floors.ratios), ceilings: only(floors.ceilings) }
  const rowsAgain = gate(second, again.scenarios, again.coldStart)
  console.log(gateTable(rowsAgain, second))
  const fellAgain = rowsAgain.filter((row) => !row.held)
  if (fellAgain.length === 0) return 0
  console.error(`Regression gate: ${fellAgain.map((row) => row.title).join('; ')} fell below its floor twice.`)
  return 1
}

async function main (): Promise<number> {
  let options: BenchOptions
  try {
    options = parseOptions(process.argv.slice(2))
  } catch (error) {
    console.error((error as Error).message)
    console.error(USAGE)
    return 2
  }
  const dir = mkdtempSync(join(tmpdir(), 'apiary-bench-'))
  // Ctrl-C must not leave servers holding ports and CPU behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the servers`)
      void stopAll().finally(() => {
        rmSync(dir, { recursive: true, force: true })
        process.exit(130)
      })
    })
  }
  try {
    if (options.catalog) return await catalogBench(options.quick, dir, nodeFlagsOf(options))
    if (options.runs) return await runsBench(options, dir)
    const baseline = options.gate ? floorsFor(readBaseline(), hostModel()) : null
    if (baseline !== null) options.only = [...Object.keys(baseline.ratios), ...(STARTUP_ROW in baseline.ceilings ? ['cold start'] : [])]
    const results = await bench(options, dir)
    const markdown = renderResults(results)
    console.log(markdown)
    const file = resultsFile(options)
    if (file === null) console.error('No results file written: --only and --cpu-prof runs are partial or skewed.')
    else {
      // The runs bench's figures are not this run's to drop: they come from `--runs`, which appends them.
      writeFileSync(file, markdown + (existsSync(file) ? runsSection(readFileSync(file, 'utf8')) : ''))
      console.error(`Written to ${file}`)
    }
    if (results.problems.length > 0) {
      console.error(`The run had ${results.problems.length} problem(s); see the Problems section.`)
      return 1
    }
    if (baseline !== null) return await gateHeld(baseline, results, options, dir)
    return 0
  } catch (error) {
    console.error(`Benchmark failed: ${(error as Error).stack ?? String(error)}`)
    return 1
  } finally {
    await stopAll()
    rmSync(dir, { recursive: true, force: true })
  }
}

process.exitCode = await main()
