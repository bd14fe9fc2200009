import { test } from 'tap'
import { type Baseline, floorsFor, gate, readBaseline } from '../../bench/gate.js'
import type { ScenarioResult } from '../../bench/load.js'

const side = { rps: 1, p50: 1, p99: 1, non2xx: 0, errors: 0, failedStatuses: {} }
const measured = (title: string, pairedRatio: number): ScenarioResult =>
  ({ title, baselineName: 'raw', target: 0.9, comparison: { service: side, baseline: side, ratio: pairedRatio, pairedRatio } })

test('the gate fails a row below baseline × (1 − margin), holds one at or above it, and fails a row not measured', async (t) => {
  const rows = gate({ margin: 0.25, ratios: { a: 0.4, b: 0.4, c: 0.4 } }, [measured('a', 0.31), measured('b', 0.29)])
  t.same(rows.map((row) => [row.title, row.held]), [['a', true], ['b', false], ['c', false]])
  t.equal(rows[0]?.floor.toFixed(2), '0.30')
})

test('bench/baseline.json gates, on each host, only rows whose measured spread it records, each at the median of its runs', async (t) => {
  const { hosts } = readBaseline()
  t.ok(Object.keys(hosts).length > 0)
  for (const [model, { margin, ratios, spread }] of Object.entries(hosts)) {
    t.ok(margin > 0 && margin < 1, `${model}: a margin`)
    for (const [title, ratio] of Object.entries(ratios)) {
      const runs = [...(spread.runs[title] ?? [])].sort((a, b) => a - b)
      t.ok(runs.length >= 4, `${model}, ${title}: at least four runs of evidence`)
      t.equal(ratio, runs[Math.floor(runs.length / 2)], `${model}, ${title}: the median of its runs`)
      t.ok(ratio * (1 - margin) <= (runs[0] ?? 0), `${model}, ${title}: the margin covers every run measured`)
    }
  }
})

test('a host is held to its own ratios; a host not measured to the lowest of every host\'s, at the widest margin', async (t) => {
  const host = (margin: number, ratios: Record<string, number>) => ({ note: '', margin, ratios, spread: { command: '', date: '', load: '', runs: {} } })
  const baseline: Baseline = { note: '', hosts: { fast: host(0.25, { a: 0.6, b: 0.2 }), slow: host(0.35, { a: 0.4, b: 0.3 }) } }
  t.same(floorsFor(baseline, 'slow'), { host: 'slow', known: true, margin: 0.35, ratios: { a: 0.4, b: 0.3 } })
  t.same(floorsFor(baseline, 'other'), { host: 'other', known: false, margin: 0.35, ratios: { a: 0.4, b: 0.2 } })
})
