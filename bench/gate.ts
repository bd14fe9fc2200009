import { readFileSync } from 'node:fs'
import type { ScenarioResult } from './report.js'

/** bench/baseline.json: the last accepted ratios of the gated rows, and how far below them a run may fall. */
export interface Baseline {
  /** Why these rows and this margin, and the evidence (bench/RESULTS.md, "Run-to-run spread"). */
  note: string
  /** A row fails when its ratio is below baseline × (1 − margin). */
  margin: number
  /** Scenario title → the accepted ratio (the median of its per-round ratios). */
  ratios: Record<string, number>
}

export const BASELINE_FILE = new URL('baseline.json', import.meta.url)

export function readBaseline (): Baseline {
  return JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline
}

export interface GateRow {
  title: string
  baseline: number
  floor: number
  ratio: number
  held: boolean
}

/** Each gated row of this run against its accepted ratio; a row the run did not measure fails. */
export function gate (baseline: Baseline, scenarios: ScenarioResult[]): GateRow[] {
  return Object.entries(baseline.ratios).map(([title, accepted]) => {
    const floor = accepted * (1 - baseline.margin)
    const ratio = scenarios.find((scenario) => scenario.title === title)?.comparison.pairedRatio ?? Number.NaN
    return { title, baseline: accepted, floor, ratio, held: ratio >= floor }
  })
}

export function gateTable (rows: GateRow[], margin: number): string {
  return [
    `Regression gate: each ratio (the median of its rounds' service/baseline ratios) against bench/baseline.json, failing below ${Math.round(margin * 100)} % under it.`,
    '',
    '| Scenario | Baseline | Floor | This run | |',
    '|---|---|---|---|---|',
    ...rows.map(({ title, baseline, floor, ratio, held }) =>
      `| ${title} | ${baseline.toFixed(2)} | ${floor.toFixed(2)} | ${Number.isNaN(ratio) ? 'not measured' : ratio.toFixed(2)} | ${held ? 'held' : '**fell**'} |`)
  ].join('\n')
}
