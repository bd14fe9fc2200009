// `npm run eval:search`: search quality through the HTTP API. Seeds a fresh Apiary on SQLite and one on PostgreSQL
// with the set's catalog, asks GET /api/bees?q=… for every labelled query, and writes nDCG@10 per half and per
// backend to eval/search/RESULTS.md. It depends on nothing but the HTTP API, so any search engine behind it is
// measured the same way.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { isPostgresUrl, privateSchema } from '../../bench/postgres.js'
import { startService } from '../../bench/service.js'
import { mean, ndcgAt } from './ndcg.js'
import { seedCatalog } from './seed.js'
import { loadCatalog, loadQueries, type LabelledQuery, type Split } from './set.js'

const K = 10
const RESULTS = new URL('RESULTS.md', import.meta.url).pathname

const USAGE = `Usage: npm run eval:search -- [--postgres URL] [--only sqlite|postgresql] [--label TEXT]
  --postgres  PostgreSQL server to seed a private schema on (default: $TEST_DATABASE_URL; without one, SQLite only)
  --only      run one backend
  --label     what is measured, for the results file (default: "today's search")`

interface Scored { query: LabelledQuery, ndcg: number, top: string[] }

interface BackendRun { backend: string, scored: Scored[], seedSeconds: number }

/** Asks the service for every query, the first K Bees in the order it ranks them. */
async function score (baseUrl: string, queries: readonly LabelledQuery[]): Promise<Scored[]> {
  const scored: Scored[] = []
  for (const query of queries) {
    const response = await fetch(`${baseUrl}/api/bees?${new URLSearchParams({ q: query.query, limit: String(K) })}`)
    if (response.status !== 200) throw new Error(`GET /api/bees?q=${query.query} answered ${response.status}: ${await response.text()}`)
    const top = (await response.json() as { bees: Array<{ id: string }> }).bees.map((bee) => bee.id)
    scored.push({ query, ndcg: ndcgAt(K, top, query.relevant), top })
  }
  return scored
}

async function runOn (backend: string, databaseUrl: string, dir: string): Promise<BackendRun> {
  const adminToken = `eval-${randomBytes(16).toString('hex')}`
  const server = await startService({
    name: `search-${backend}`,
    databaseUrl,
    dir,
    env: { ADMIN_TOKEN: adminToken, EGRESS_ALLOWLIST: '127.0.0.1', PUBLISHER_MAX_BEES: '1000', LOG_LEVEL: 'warn' }
  })
  try {
    const started = performance.now()
    await seedCatalog(server.url, adminToken, loadCatalog())
    const seedSeconds = (performance.now() - started) / 1000
    return { backend, scored: await score(server.url, loadQueries()), seedSeconds }
  } finally {
    await server.stop()
  }
}

const fixed = (value: number) => value.toFixed(3)
const ofSplit = (run: BackendRun, split: Split) => run.scored.filter(({ query }) => query.split === split)

function report (runs: readonly BackendRun[], label: string): string {
  const queries = loadQueries()
  const lines = [
    '# Search quality: nDCG@10',
    '',
    `Written by \`npm run eval:search\` (eval/search/README.md) on ${new Date().toISOString().slice(0, 10)}, measuring ${label}. ` +
      `${loadCatalog().length} published Bees plus the built-in ones; ${queries.length} labelled queries, ` +
      `${queries.filter((query) => query.split === 'tune').length} in the tuning half and ` +
      `${queries.filter((query) => query.split === 'held-out').length} held out. Each query is \`GET /api/bees?q=…&limit=${K}\`.`,
    '',
    '| backend | tuning half | held-out half | all | queries with nothing relevant in the top 10 |',
    '|---|---:|---:|---:|---:|',
    ...runs.map((run) => `| ${run.backend} | ${fixed(mean(ofSplit(run, 'tune').map(({ ndcg }) => ndcg)))} | ` +
      `${fixed(mean(ofSplit(run, 'held-out').map(({ ndcg }) => ndcg)))} | ${fixed(mean(run.scored.map(({ ndcg }) => ndcg)))} | ` +
      `${run.scored.filter(({ ndcg }) => ndcg === 0).length} of ${run.scored.length} |`)
  ]
  const first = runs[0]
  if (first !== undefined) {
    // Per query for the tuning half only: what is tuned on may be read closely, what is held out is judged by its mean.
    lines.push('', `## The tuning half, per query (${first.backend})`, '', '| query | nDCG@10 | first three answers |', '|---|---:|---|',
      ...ofSplit(first, 'tune').map(({ query, ndcg, top }) =>
        `| ${query.query} | ${fixed(ndcg)} | ${top.slice(0, 3).map((id) => `\`${id}\``).join(', ') || '(none)'} |`))
  }
  return lines.join('\n') + '\n'
}

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: true,
  options: { postgres: { type: 'string' }, only: { type: 'string' }, label: { type: 'string' }, help: { type: 'boolean' } }
})
if (values.help === true || (values.only !== undefined && !['sqlite', 'postgresql'].includes(values.only))) {
  console.error(USAGE)
  process.exit(values.help === true ? 0 : 2)
}
const postgresUrl = values.postgres ?? process.env.TEST_DATABASE_URL
const dir = mkdtempSync(join(tmpdir(), 'apiary-search-eval-'))
const runs: BackendRun[] = []
try {
  if (values.only !== 'postgresql') runs.push(await runOn('SQLite', join(dir, 'catalog.db'), dir))
  if (values.only !== 'sqlite') {
    if (isPostgresUrl(postgresUrl)) {
      const schema = await privateSchema(postgresUrl)
      try {
        runs.push(await runOn('PostgreSQL', schema.url, dir))
      } finally {
        await schema.drop()
      }
    } else {
      console.error('No PostgreSQL: pass --postgres URL or set TEST_DATABASE_URL. SQLite only.')
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
for (const run of runs) console.error(`${run.backend}: seeded ${loadCatalog().length} Bees in ${run.seedSeconds.toFixed(1)} s`)
const text = report(runs, values.label ?? 'today\'s search')
writeFileSync(RESULTS, text)
console.log(text)
