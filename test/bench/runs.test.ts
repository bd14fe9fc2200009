import { test } from 'tap'
import { RUNS_HEADING, runsSection } from '../../bench/report.js'
import { type Drained, problemsOf } from '../../bench/runs.js'

const read = { rps: 1000, p50: 20, p99: 90, non2xx: 0, errors: 0, failedStatuses: {} }
const drained = (extra: Partial<Drained>): Drained =>
  ({ backend: 'SQLite', count: 3, queueMs: 10, drainMs: 10, statuses: { succeeded: 3 }, upstreamCalls: 3, read, ...extra })

test('the runs bench fails a drain where a run did not succeed, the upstream was not called once per run, or a read failed', async (t) => {
  t.same(problemsOf(drained({})), [])
  t.match(problemsOf(drained({ statuses: { succeeded: 2, expired: 1 } })), [/2 of 3 runs succeeded/])
  t.match(problemsOf(drained({ upstreamCalls: 4 })), [/called 4 times for 3 runs/])
  t.match(problemsOf(drained({ read: { ...read, non2xx: 5 } })), [/5 non-2xx/])
})

test('the request bench keeps the runs section of bench/RESULTS.md: the file\'s tail from its heading, or nothing', async (t) => {
  t.equal(runsSection(`# Results\n\n## Throughput\n\n| a |\n\n${RUNS_HEADING}\n\n| b |\n`), `\n${RUNS_HEADING}\n\n| b |\n`)
  t.equal(runsSection('# Results\n\n## Throughput\n'), '')
})
