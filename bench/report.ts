import { readFileSync } from 'node:fs'
import { cpus, loadavg, platform, release, totalmem } from 'node:os'
import { BATCH_MS, type BeeSpeedRow } from './bee-speed.js'
import { type BreakdownColumn, breakdownTable } from './breakdown.js'
import type { ColdStart } from './cold-start.js'
import { hostModel, readBaseline, spreadSection } from './gate.js'
import type { LoadSettings, ScenarioResult, Side } from './load.js'

/** Issue 28's goals, which restated the first performance round's (150 MB, 0.5 s; 0.9, 0.9, 0.6 and 0.35 in scenarios.ts). */
export const PEAK_RSS_TARGET_BYTES = 200e6
/** Spawn to the first 200 on /health, as a multiple of bare Fastify's spawned the same way (issue 47). */
export const COLD_START_TARGET_MULTIPLE = 2

/** Latency under a fixed offered load. */
export interface OfferedResult {
  title: string
  /** Offered req/s. */
  rate: number
  side: Side
}

export interface Results {
  date: Date
  command: string
  load: LoadSettings
  scenarios: ScenarioResult[]
  /** The Bees' own µs against their libraries', in this process (bench/bee-speed.ts); empty when none was selected. */
  beeSpeed: BeeSpeedRow[]
  offered: OfferedResult[]
  peakRssBytes: number | null
  coldStart: ColdStart | null
  /** µs per request of each step, per scenario (not with --quick). */
  breakdown: BreakdownColumn[] | null
  /** Parts that did not run, with why. */
  skipped: string[]
  /** Anything that makes a figure unusable, such as non-2xx answers under load. */
  problems: string[]
}

const verdict = (met: boolean) => met ? 'met' : '**missed**'
const rps = (value: number) => Math.round(value).toLocaleString('en-US')
const ms = (value: number) => value.toFixed(value < 10 ? 1 : 0)
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`

/**
 * The processor's family, model and stepping from /proc/cpuinfo (Linux): hosts that os.cpus() names alike (three
 * "AMD EPYC" hosts here, with ratios a third apart) can then be told apart in the results, if they differ.
 */
function cpuSignature (): string {
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8')
    const field = (name: string) => new RegExp(`^${name}\\s*: (.*)$`, 'm').exec(info)?.[1]
    const [family, model, stepping] = [field('cpu family'), field('model'), field('stepping')]
    return family === undefined ? '' : ` (family ${family}, model ${model ?? '?'}, stepping ${stepping ?? '?'})`
  } catch {
    return ''
  }
}

export function machine (): string {
  return `${hostModel()}${cpuSignature()} × ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${platform()} ${release()}`
}

function throughputTable (scenarios: ScenarioResult[]): string[] {
  const rows = scenarios.map(({ title, baselineName, target, comparison: { service, baseline, ratio } }) =>
    `| ${title} | ${baselineName} | ${target === null ? '–' : `≥ ${target.toFixed(2)}`} | ${ratio.toFixed(2)} | ${target === null ? '' : verdict(ratio >= target)} | ` +
    `${rps(service.rps)} | ${rps(baseline.rps)} | ${ms(service.p50)} / ${ms(service.p99)} | ${ms(baseline.p50)} / ${ms(baseline.p99)} |`)
  return [
    '| Scenario | Baseline | Target | Ratio | | Apiary req/s | Baseline req/s | Apiary p50 / p99 ms | Baseline p50 / p99 ms |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows
  ]
}

const micros = (value: number) => value.toFixed(value < 10 ? 2 : 1)

export function beeSpeedTable (rows: BeeSpeedRow[]): string[] {
  return [
    '| Work | Baseline | Target | Ratio | | Apiary µs | Baseline µs |',
    '|---|---|---|---|---|---|---|',
    ...rows.map(({ title, baselineName, target, ratio, apiaryUs, baselineUs }) =>
      `| ${title} | ${baselineName} | ≤ ${target.toFixed(2)} | ${ratio.toFixed(3)} | ${verdict(ratio <= target)} | ${micros(apiaryUs)} | ${micros(baselineUs)} |`)
  ]
}

function offeredTable (offered: OfferedResult[]): string[] {
  return [
    '| Scenario | Offered req/s | Served req/s | p50 ms | p99 ms |',
    '|---|---|---|---|---|',
    ...offered.map(({ title, rate, side }) => `| ${title} | ${rps(rate)} | ${rps(side.rps)} | ${ms(side.p50)} | ${ms(side.p99)} |`)
  ]
}

function resourceTable ({ peakRssBytes, coldStart }: Results): string[] {
  const rss = peakRssBytes === null
    ? '| Peak RSS of the service over the run (VmHWM) | ≤ 200 MB | n/a (no /proc) | | |'
    : `| Peak RSS of the service over the run (VmHWM) | ≤ 200 MB | ${megabytes(peakRssBytes)} | ${verdict(peakRssBytes <= PEAK_RSS_TARGET_BYTES)} | |`
  const rows = [rss]
  if (coldStart !== null) {
    rows.push(`| Cold start, spawn → first 200 on /health (median of ${coldStart.spawns}), × bare Fastify's | ≤ ${COLD_START_TARGET_MULTIPLE.toFixed(1)} × | ` +
      `${coldStart.ratio.toFixed(2)} × | ${verdict(coldStart.ratio <= COLD_START_TARGET_MULTIPLE)} | ` +
      `${ms(coldStart.serviceMs)} ms against bare Fastify's ${ms(coldStart.baselineMs)} ms |`)
  }
  return ['| Measure | Target | Value | | Absolute (this machine) |', '|---|---|---|---|---|', ...rows]
}

/** The runs bench's section of bench/RESULTS.md (bench/runs.ts): the file's last, kept when the request bench rewrites the rest. */
export const RUNS_HEADING = '## Runs of an async Bee'

/** `text`'s runs section, from its heading to the end, or '' when it has none. */
export function runsSection (text: string): string {
  const start = text.indexOf(`\n${RUNS_HEADING}`)
  return start < 0 ? '' : text.slice(start)
}

/** The results as Markdown: the file's content, and what the run prints. */
export function renderResults (results: Results): string {
  const { load } = results
  const lines = [
    '# Apiary benchmark results',
    '',
    `- Date: ${results.date.toISOString()}`,
    `- Node: ${process.version}`,
    `- Machine: ${machine()}`,
    `- Machine load at the end of the run: load average ${loadavg().map((load) => load.toFixed(1)).join(' / ')} (1 / 5 / 15 min; other work on the machine included)`,
    `- Command: \`${results.command}\``,
    `- Load: autocannon in the runner's process, each server in its own; ${load.connections} connections, pipelining 1; ` +
      `${load.rounds} interleaved round(s) of ${load.seconds} s per side after ${load.warmupSeconds} s of warm-up per side; ` +
      'req/s and latencies are medians over rounds. Apiary logs at info to a file, as operators run it.',
    '',
    'Ratios are service / baseline from this one run. Absolute figures are this machine\'s only (2 cores, shared and ' +
      'noisy): compare ratios, not req/s, between runs and machines. 1 MB = 10^6 bytes.',
    '',
    '## Throughput',
    '',
    ...throughputTable(results.scenarios),
    '',
    ...(results.beeSpeed.length === 0
      ? []
      : ['## The Bees\' own work', '',
          `Each Bee's function from dist/ and the library it is judged against, on the same text, in the runner's process before any server starts: ${results.beeSpeed[0]!.rounds} ` +
          `rounds of a batch of each (about ${BATCH_MS} ms a batch, which goes first alternating); the ratio` +
            ' is the median of the rounds\' ratios, the µs (CPU time of the process) the medians of each side (bench/bee-speed.ts).',
          '', ...beeSpeedTable(results.beeSpeed), '']),
    '## Latency at a fixed offered load',
    '',
    `autocannon offering a fixed rate (\`--rate\`) over ${load.connections} connections for ${load.rounds * load.seconds} s, below saturation: the latency callers see on a normal day.`,
    '',
    ...offeredTable(results.offered),
    '',
    '## Resources',
    '',
    ...resourceTable(results)
  ]
  if (results.breakdown !== null) {
    lines.push('', '## Where the time goes', '',
      'µs per request of each hook and step, from `performance.now()` spans summed over a run of the bench build ' +
      '(BENCH_SPANS_FILE; plugins/spans.ts) under one connection, so that a span is CPU time, not waiting for other ' +
      `requests; each scenario on a fresh service, ${results.load.warmupSeconds} s of warm-up, then ${results.load.seconds} s. A hook is named by the file or ` +
      'package that added it. ↳ rows are inside the row above them (the executor inside the route handler, the ledger inside ' +
      'the executor). onResponse hooks and the access log line run after the answer is written.', '',
      ...breakdownTable(results.breakdown))
  }
  lines.push('', '## Regression gate: run-to-run spread', '', ...spreadSection(readBaseline()))
  if (results.skipped.length > 0) lines.push('', '## Skipped', '', ...results.skipped.map((reason) => `- ${reason}`))
  if (results.problems.length > 0) lines.push('', '## Problems (figures affected are not meaningful)', '', ...results.problems.map((problem) => `- ${problem}`))
  return lines.join('\n') + '\n'
}
