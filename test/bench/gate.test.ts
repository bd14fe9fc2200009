import { test } from 'tap'
import { type Baseline, floorsFor, gate, readBaseline, STARTUP_ROW } from '../../bench/gate.js'
import type { ScenarioResult } from '../../bench/load.js'

const side = { rps: 1, p50: 1, p99: 1, non2xx: 0, errors: 0, failedStatuses: {} }
const measured = (title: string, pairedRatio: number): ScenarioResult =>
  ({ title, baselineName: 'raw', target: 0.9, comparison: { service: side, baseline: side, ratio: pairedRatio, pairedRatio } })

test('the gate fails a row below baseline × (1 − margin), holds one at or above it, and fails a row not measured', async (t) => {
  const rows = gate({ margin: 0.25, ratios: { a: 0.4, b: 0.4, c: 0.4 } }, [measured('a', 0.31), measured('b', 0.29)])
  t.same(rows.map((row) => [row.title, row.held]), [['a', true], ['b', false], ['c', false]])
  t.equal(rows[0]?.floor.toFixed(2), '0.30')
})

test('the start-up multiple fails above baseline × (1 + margin), and when the run took no cold start', async (t) => {
  const limits = { margin: 0.25, ratios: {}, ceilings: { [STARTUP_ROW]: 2 } }
  const start = (ratio: number) => ({ spawns: 5, serviceMs: 100 * ratio, baselineMs: 100, ratio })
  t.match(gate(limits, [], start(2.5)), [{ title: STARTUP_ROW, floor: 2.5, ceiling: true, held: true }])
  t.match(gate(limits, [], start(2.6)), [{ held: false }])
  t.match(gate(limits, [], null), [{ held: false }])
})

test('bench/baseline.json gates, on each host, only rows whose measured spread it records, each at the median of its runs', async (t) => {
  const { hosts } = readBaseline()
  t.ok(Object.keys(hosts).length > 0)
  for (const [model, { margin, ratios, ceilings = {}, spread }] of Object.entries(hosts)) {
    t.ok(margin > 0 && margin < 1, `${model}: a margin`)
    for (const [title, multiple] of Object.entries(ceilings)) {
      const runs = [...(spread.runs[title] ?? [])].sort((a, b) => a - b)
      t.ok(runs.length >= 4, `${model}, ${title}: at least four runs of evidence`)
      t.equal(multiple, runs[Math.floor(runs.length / 2)], `${model}, ${title}: the median of its runs`)
      t.ok(multiple * (1 + margin) >= (runs.at(-1) ?? Infinity), `${model}, ${title}: the margin covers every run measured`)
    }
    for (const [title, ratio] of Object.entries(ratios)) {
      const runs = [...(spread.runs[title] ?? [])].sort((a, b) => a - b)
      t.ok(runs.length >= 4, `${model}, ${title}: at least four runs of evidence`)
      t.equal(ratio, runs[Math.floor(runs.length / 2)], `${model}, ${title}: the median of its runs`)
      t.ok(ratio * (1 - margin) <= (runs[0] ?? 0), `${model}, ${title}: the margin covers every run measured`)
    }
  }
})

test('a host is held to its own ratios; a host not measured to the lowest of every host\'s, at the widest margin', async (t) => {
  const host = (margin: number, ratios: Record<string, number>, ceilings: Record<string, number> = {}) =>
    ({ note: '', margin, ratios, ceilings, spread: { command: '', date: '', load: '', runs: {} } })
  const baseline: Baseline = { note: '', hosts: { fast: host(0.25, { a: 0.6, b: 0.2 }, { s: 1.8 }), slow: host(0.35, { a: 0.4, b: 0.3 }, { s: 2.2 }) } }
  t.same(floorsFor(baseline, 'slow'), { host: 'slow', known: true, margin: 0.35, ratios: { a: 0.4, b: 0.3 }, ceilings: { s: 2.2 } })
  t.same(floorsFor(baseline, 'other'), { host: 'other', known: false, margin: 0.35, ratios: { a: 0.4, b: 0.2 }, ceilings: { s: 2.2 } }, 'the highest multiple')
})
