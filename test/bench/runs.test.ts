import { test } from 'tap'
import { RUNS_HEADING, runsSection } from '../../bench/report.js'
import { type Drained, problemsOf, withRunsSection } from '../../bench/runs.js'
import { STREAMS_HEADING, streamsSection } from '../../bench/streams.js'

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

test('the runs section keeps the part a run did not measure: --only streams leaves the drains, --only drain the streams', async (t) => {
  const head = '# Results\n\n## Throughput\n\n| a |\n'
  const drains = `${RUNS_HEADING}\n\n| drained |\n`
  const streams = `${STREAMS_HEADING}\n\n| streams |\n`
  const both = withRunsSection(head, drains, streams)
  t.equal(both, `${head}\n${drains}\n${streams}`)
  t.equal(withRunsSection(both, null, `${STREAMS_HEADING}\n\n| again |\n`), `${head}\n${drains}\n${STREAMS_HEADING}\n\n| again |\n`)
  t.equal(withRunsSection(both, `${RUNS_HEADING}\n\n| again |\n`, null), `${head}\n${RUNS_HEADING}\n\n| again |\n\n${streams}`)
  t.equal(withRunsSection(head, null, streams), `${head}\n${streams}`, 'no drains yet: the streams alone')
})

test('the open streams\' rows: RSS per stream against the 100 KB goal, and the problems', async (t) => {
  const figures = {
    count: 1000,
    rssBeforeBytes: 100 * 2 ** 20,
    rssOpenBytes: 100 * 2 ** 20 + 40 * 1024 * 1000,
    events: 15_000,
    addedMs: { p50: 2, p99: 90, max: 100 },
    directMs: { p50: 0.4, p99: 17, max: 41 },
    problems: []
  }
  t.match(streamsSection(figures, '1 / 1 / 1'), /\| 40\.0 KB \(100\.0 MB → 139\.1 MB\) met \|/)
  t.match(streamsSection({ ...figures, rssOpenBytes: 100 * 2 ** 20 + 120 * 1024 * 1000 }, '1 / 1 / 1'), /120\.0 KB .* \*\*missed\*\*/)
  t.match(streamsSection({ ...figures, problems: ['3 streams ended while timed'] }, '1 / 1 / 1'), /Problems[\s\S]*- 3 streams ended while timed/)
})
