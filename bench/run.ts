import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { peakRssBytes, type Server, startServer, stopAll } from './children.js'
import { coldStart } from './cold-start.js'
import { type Comparison, compare } from './load.js'
import { type BenchOptions, parseOptions, USAGE } from './options.js'
import { isPostgresUrl, privateSchema } from './postgres.js'
import { renderResults, type Results, type ScenarioResult } from './report.js'
import { checkSameAnswer } from './same-answer.js'
import { BEES_PATH, DETAIL_PATH, paidScenario, type Scenario, scenarios } from './scenarios.js'
import { capture, fundedWallet, startService } from './service.js'

const server = (name: string) => fileURLToPath(new URL(`servers/${name}`, import.meta.url))

function bareFastify (dir: string, name: string, bee?: string): Promise<Server> {
  return startServer({ name, args: [server('bare-fastify.mjs')], env: bee === undefined ? {} : { BEE: bee }, logFile: join(dir, `${name}.log`) })
}

function failures (scenario: string, side: string, { non2xx, errors, failedStatuses }: Comparison['service']): string[] {
  const found: string[] = []
  if (non2xx > 0) {
    const codes = Object.entries(failedStatuses).map(([code, count]) => `${count} × ${code}`).join(', ')
    found.push(`${scenario}: ${side} answered ${non2xx} non-2xx responses (${codes})`)
  }
  if (errors > 0) found.push(`${scenario}: ${side} had ${errors} connection errors or timeouts`)
  return found
}

async function measure (scenario: Scenario, options: BenchOptions, results: Results): Promise<void> {
  console.error(`… ${scenario.title}`)
  await checkSameAnswer(scenario)
  const comparison = await compare(scenario.service, scenario.baseline, options.load)
  const result: ScenarioResult = { title: scenario.title, baselineName: scenario.baselineName, target: scenario.target, comparison }
  results.scenarios.push(result)
  results.problems.push(...failures(scenario.title, 'Apiary', comparison.service), ...failures(scenario.title, 'the baseline', comparison.baseline))
}

const selected = (options: BenchOptions, title: string) =>
  options.only === null || options.only.some((word) => title.includes(word))

async function bench (options: BenchOptions, dir: string): Promise<Results> {
  const results: Results = {
    date: new Date(), command: options.command, load: options.load, scenarios: [], peakRssBytes: null, coldStart: null, skipped: [], problems: []
  }
  const nodeFlags = options.cpuProfDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${resolve(options.cpuProfDir)}`]

  const service = await startService({ name: 'apiary', databaseUrl: join(dir, 'ledger.db'), dir, nodeFlags })
  const walletToken = await fundedWallet(service.url)
  const responsesFile = join(dir, 'responses.json')
  writeFileSync(responsesFile, JSON.stringify({
    [BEES_PATH]: await capture(service.url + BEES_PATH),
    [DETAIL_PATH]: await capture(service.url + DETAIL_PATH)
  }))
  const [rawHttp, summarizer, sentiment] = await Promise.all([
    startServer({ name: 'raw-http', args: [server('raw-http.mjs')], env: { RESPONSES_FILE: responsesFile }, logFile: join(dir, 'raw-http.log') }),
    bareFastify(dir, 'fastify-summarizer', 'text-summarizer'),
    bareFastify(dir, 'fastify-sentiment', 'sentiment-analyzer')
  ])

  const endpoints = { service: service.url, rawHttp: rawHttp.url, summarizer: summarizer.url, sentiment: sentiment.url, walletToken }
  for (const scenario of scenarios(endpoints)) {
    if (selected(options, scenario.title)) await measure(scenario, options, results)
  }

  const postgresTitle = 'paid execute (PostgreSQL): sentiment-analyzer, one sentence'
  const postgresUrl = process.env.DATABASE_URL
  if (!isPostgresUrl(postgresUrl)) {
    results.skipped.push(`${postgresTitle}: DATABASE_URL in the bench's environment is not a postgres:// URL ` +
      '(run `DATABASE_URL=postgres://user@host:5432/db npm run bench` to include it)')
  } else if (selected(options, postgresTitle)) {
    const schema = await privateSchema(postgresUrl)
    let onPostgres: Server | undefined
    try {
      onPostgres = await startService({ name: 'apiary-postgres', databaseUrl: schema.url, dir, nodeFlags })
      const url = onPostgres.url
      const token = await fundedWallet(url)
      await measure(paidScenario(postgresTitle, url, [token], sentiment.url), options, results)
      // One wallet is the worst case (every charge waits for the last one's row lock and commit);
      // callers with wallets of their own charge in parallel.
      const tokens = await Promise.all(Array.from({ length: options.load.connections }, () => fundedWallet(url)))
      await measure(paidScenario(`${postgresTitle}, ${tokens.length} wallets`, url, tokens, sentiment.url), options, results)
    } finally {
      // Its pool's connections must be gone before the schema they use is dropped.
      await onPostgres?.stop()
      await schema.drop()
    }
  }

  results.peakRssBytes = peakRssBytes(service.pid)
  await stopAll()

  if (selected(options, 'cold start')) {
    console.error(`… cold start (${options.coldStarts} spawns each)`)
    results.coldStart = await coldStart(
      options.coldStarts,
      (i) => startService({ name: `apiary-cold-${i}`, databaseUrl: join(dir, `cold-${i}.db`), dir }),
      () => bareFastify(dir, 'fastify-health')
    )
  }
  return results
}

function resultsFile (options: BenchOptions): string | null {
  if (options.only !== null || options.cpuProfDir !== null) return null
  return fileURLToPath(new URL(options.quick ? 'RESULTS.quick.md' : 'RESULTS.md', import.meta.url))
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
    const results = await bench(options, dir)
    const markdown = renderResults(results)
    console.log(markdown)
    const file = resultsFile(options)
    if (file === null) console.error('No results file written: --only and --cpu-prof runs are partial or skewed.')
    else {
      writeFileSync(file, markdown)
      console.error(`Written to ${file}`)
    }
    if (results.problems.length > 0) {
      console.error(`The run had ${results.problems.length} problem(s); see the Problems section.`)
      return 1
    }
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
