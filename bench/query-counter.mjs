// Preloaded into the unbundled server (node --import, see bench/publish-probe.ts): counts the statements it sends to
// PostgreSQL, by their text, and writes the counts so far to QUERY_COUNTS_FILE on SIGWINCH (the service shuts down on
// SIGTERM, SIGINT and SIGUSR2). pg_stat_statements is not installed on the machines the benches run on.
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'

const pg = createRequire(import.meta.url)('pg')
const counts = new Map()
const query = pg.Client.prototype.query
pg.Client.prototype.query = function (config, ...rest) {
  const text = (typeof config === 'string' ? config : config?.text ?? '?').replace(/\s+/g, ' ').trim()
  counts.set(text, (counts.get(text) ?? 0) + 1)
  return query.call(this, config, ...rest)
}
process.on('SIGWINCH', () => writeFileSync(process.env.QUERY_COUNTS_FILE, JSON.stringify([...counts])))
