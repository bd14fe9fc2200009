import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { median } from './stats.js'
import type { ColdStart } from './cold-start.js'
import type { ScenarioResult } from './load.js'

/** The start-up row: a multiple of bare Fastify's, where lower is better (bench/cold-start.ts). */
export const STARTUP_ROW = 'cold start: spawn to first 200 on /health, × bare Fastify\'s'

/** The accepted ratios of one kind of host (its CPU model), and how far below them a run may fall there. */
export interface HostBaseline {
  /** Why these figures and this margin, on this host. */
  note: string
  /** A row fails when its ratio is below baseline × (1 − margin); chosen from the spread below. */
  margin: number
  /** Scenario title → the accepted ratio: the median of its runs in `spread`. */
  ratios: Record<string, number>
  /** Rows where lower is better (STARTUP_ROW) → the accepted multiple, the median of its runs: fails above × (1 + margin). */
  ceilings?: Record<string, number>
  /** The evidence: `npm run bench -- --gate` run several times in a row on this host, every row's ratio in each. */
  spread: { command: string, date: string, load: string, runs: Record<string, number[]> }
}

/**
 * bench/baseline.json. The ratios depend on the host (the same code measured 0.64 for discovery on one CPU model and
 * 0.46 on another, each against raw node:http on its own host), so each kind of host CI has run on has its own.
 */
export interface Baseline {
  /** What the file is and how it is updated; bench/RESULTS.md renders it. */
  note: string
  /** CPU model (os.cpus()[0].model) → its accepted ratios. */
  hosts: Record<string, HostBaseline>
}

export const BASELINE_FILE = new URL('baseline.json', import.meta.url)

export function readBaseline (): Baseline {
  return JSON.parse(readFileSync(BASELINE_FILE, 'utf8')) as Baseline
}

/** What os.cpus() calls this machine's processor: the key of its baseline. */
export const hostModel = () => cpus()[0]?.model.trim() ?? 'unknown CPU'

/** What a run on this host is held to: the host's own baseline, or on a host not measured yet the lowest floor of every host's. */
export interface Floors { host: string, known: boolean, margin: number, ratios: Record<string, number>, ceilings: Record<string, number> }

export function floorsFor (baseline: Baseline, model: string): Floors {
  const own = baseline.hosts[model]
  if (own !== undefined) return { host: model, known: true, margin: own.margin, ratios: own.ratios, ceilings: own.ceilings ?? {} }
  const hosts = Object.values(baseline.hosts)
  const margin = Math.max(...hosts.map((host) => host.margin))
  const loosest = (of: (host: HostBaseline) => Record<string, number>, pick: (...values: number[]) => number) => {
    const titles = [...new Set(hosts.flatMap((host) => Object.keys(of(host))))]
    return Object.fromEntries(titles.map((title) => [title, pick(...hosts.flatMap((host) => of(host)[title] ?? []))]))
  }
  return { host: model, known: false, margin, ratios: loosest((host) => host.ratios, Math.min), ceilings: loosest((host) => host.ceilings ?? {}, Math.max) }
}

export interface GateRow {
  title: string
  baseline: number
  /** The least ratio that holds, or for a ceiling the most. */
  floor: number
  ceiling: boolean
  ratio: number
  held: boolean
}

/** Each gated row of this run against its accepted ratio; a row the run did not measure fails. */
export function gate (baseline: Pick<Floors, 'margin' | 'ratios'> & Partial<Pick<Floors, 'ceilings'>>, scenarios: ScenarioResult[], coldStart: ColdStart | null = null): GateRow[] {
  const floors = Object.entries(baseline.ratios).map(([title, accepted]) => {
    const floor = accepted * (1 - baseline.margin)
    const ratio = scenarios.find((scenario) => scenario.title === title)?.comparison.pairedRatio ?? Number.NaN
    return { title, baseline: accepted, floor, ceiling: false, ratio, held: ratio >= floor }
  })
  const ceilings = Object.entries(baseline.ceilings ?? {}).map(([title, accepted]) => {
    const limit = accepted * (1 + baseline.margin)
    const ratio = title === STARTUP_ROW ? coldStart?.ratio ?? Number.NaN : Number.NaN
    return { title, baseline: accepted, floor: limit, ceiling: true, ratio, held: ratio <= limit }
  })
  return [...floors, ...ceilings]
}

/** How far below its median a row's worst run fell, as a fraction of the median. */
export function worstDrop (ratios: number[]): number {
  const middle = median(ratios)
  return (middle - Math.min(...ratios)) / middle
}

/** bench/RESULTS.md's account of the gate: per host, the spread measured, per row, and the margin chosen from it. */
export function spreadSection ({ note, hosts }: Baseline): string[] {
  return [note, ...Object.entries(hosts).flatMap(([model, host]) => ['', `### ${model}`, '', ...hostSpread(host)])]
}

function hostSpread ({ note, margin, ratios, ceilings = {}, spread }: HostBaseline): string[] {
  const rows = Object.entries(spread.runs).map(([title, runs]) => {
    const gated = title in ratios || title in ceilings
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
    `Margin: ${Math.round(margin * 100)} % below the baseline (above it for the start-up multiple). ${note}`
  ]
}

export function gateTable (rows: GateRow[], { host, known, margin }: Floors): string {
  const against = known ? `bench/baseline.json's ratios for this host (${host})` : `the lowest of bench/baseline.json's hosts' ratios (this host, ${host}, has none of its own)`
  return [
    `Regression gate: each ratio (the median of its rounds' service/baseline ratios) against ${against}, failing below ${Math.round(margin * 100)} % under it ` +
      `(the start-up multiple, the median of its spawns' times over bare Fastify's: above ${Math.round(margin * 100)} % over it).`,
    '',
    '| Scenario | Baseline | Limit | This run | |',
    '|---|---|---|---|---|',
    ...rows.map(({ title, baseline, floor, ceiling, ratio, held }) =>
      `| ${title} | ${baseline.toFixed(2)} | ${ceiling ? '≤' : '≥'} ${floor.toFixed(2)} | ${Number.isNaN(ratio) ? 'not measured' : ratio.toFixed(2)} | ${held ? 'held' : '**fell**'} |`)
  ].join('\n')
}
