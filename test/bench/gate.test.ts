import { test } from 'tap'
import { type Baseline, gate, readBaseline } from '../../bench/gate.js'
import type { ScenarioResult } from '../../bench/report.js'

const side = { rps: 1, p50: 1, p99: 1, non2xx: 0, errors: 0, failedStatuses: {} }
const measured = (title: string, pairedRatio: number): ScenarioResult =>
  ({ title, baselineName: 'raw', target: 0.9, comparison: { service: side, baseline: side, ratio: pairedRatio, pairedRatio } })

test('the gate fails a row below baseline × (1 − margin), holds one at or above it, and fails a row not measured', async (t) => {
  const baseline: Baseline = { note: '', margin: 0.25, ratios: { a: 0.4, b: 0.4, c: 0.4 }, spread: { command: '', date: '', load: '', runs: {} } }
  const rows = gate(baseline, [measured('a', 0.31), measured('b', 0.29)])
  t.same(rows.map((row) => [row.title, row.held]), [['a', true], ['b', false], ['c', false]])
  t.equal(rows[0]?.floor.toFixed(2), '0.30')
})

test('bench/baseline.json gates only rows whose measured spread it records, each at the median of its runs', async (t) => {
  const { margin, ratios, spread } = readBaseline()
  t.ok(margin > 0 && margin < 1)
  for (const [title, ratio] of Object.entries(ratios)) {
    const runs = [...(spread.runs[title] ?? [])].sort((a, b) => a - b)
    t.ok(runs.length >= 4, `${title}: at least four runs of evidence`)
    t.equal(ratio, runs[Math.floor(runs.length / 2)], `${title}: the median of its runs`)
  }
})
