import { readFileSync } from 'node:fs'
import { median } from './stats.js'
import type { ScenarioResult } from './report.js'

/** bench/baseline.json: the last accepted ratios of the gated rows, and how far below them a run may fall. */
export interface Baseline {
  /** Why these rows and this margin; bench/RESULTS.md renders it with the evidence below. */
  note: string
  /** A row fails when its ratio is below baseline × (1 − margin). */
  margin: number
  /** Scenario title → the accepted ratio: the median of its runs in `spread`. */
  ratios: Record<string, number>
  /** The evidence: `npm run bench -- --gate` run several times in a row on this machine, every row's ratio in each. */
  spread: { command: string, date: string, load: string, runs: Record<string, number[]> }
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

/** How far below its median a row's worst run fell, as a fraction of the median. */
export function worstDrop (ratios: number[]): number {
  const middle = median(ratios)
  return (middle - Math.min(...ratios)) / middle
}

/** bench/RESULTS.md's account of the gate: the spread measured, per row, and the margin chosen from it. */
export function spreadSection ({ note, margin, ratios, spread }: Baseline): string[] {
  const rows = Object.entries(spread.runs).map(([title, runs]) => {
    const gated = title in ratios
    return `| ${title} | ${runs.map((ratio) => ratio.toFixed(2)).join(' / ')} | ${median(runs).toFixed(2)} | ` +
      `${(100 * (Math.max(...runs) - Math.min(...runs)) / median(runs)).toFixed(0)} % | ${(100 * worstDrop(runs)).toFixed(0)} % | ${gated ? 'gated' : 'not gated'} |`
  })
  return [
    `\`${spread.command}\` run ${Object.values(spread.runs)[0]?.length ?? 0} times in a row (${spread.date}; ${spread.load}). ` +
      'Each figure is the median of the rounds\' own service/baseline ratios.',
    '',
    '| Scenario | Ratio in each run | Median | Spread (max − min) / median | Worst run below the median | |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    `Margin: ${Math.round(margin * 100)} % below the baseline (bench/baseline.json). ${note}`
  ]
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
