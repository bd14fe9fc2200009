import autocannon from 'autocannon'
import { median } from './stats.js'

export interface Target {
  url: string
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  /** A header whose value turns over these values request by request (e.g. many wallets' tokens). */
  rotate?: { header: string, values: string[] }
}

export interface LoadSettings {
  connections: number
  rounds: number
  /** Length of one measured run, per side and round. */
  seconds: number
  /** Unmeasured load per side before the first round, so neither side is timed while its JIT is still cold. */
  warmupSeconds: number
}

/** The figures of one run, or of one side over its rounds: medians for timings, sums for failures. */
export interface Side {
  rps: number
  p50: number
  p99: number
  non2xx: number
  errors: number
  /** Count per status code that was not 2xx. */
  failedStatuses: Record<string, number>
}

export interface Comparison {
  service: Side
  baseline: Side
  /** service / baseline, in requests per second. */
  ratio: number
  /**
   * The median of each round's own service / baseline: a round's two sides run back to back, so load that comes
   * and goes on a shared machine falls on both, where it skews the ratio of the two sides' medians. The gate's figure.
   */
  pairedRatio: number
}

function rotating ({ header, values }: NonNullable<Target['rotate']>): autocannon.Request[] {
  let next = 0
  return [{
    setupRequest: (request) => ({ ...request, headers: { ...request.headers, [header]: values[next++ % values.length] as string } })
  }]
}

/** Loads one target for `seconds`; with `rate`, offers that many requests a second in all instead of as many as it can. */
export async function fire (target: Target, seconds: number, connections: number, rate?: number): Promise<Side> {
  const result = await autocannon({
    ...(rate === undefined ? {} : { overallRate: rate }),
    url: target.url,
    method: target.method,
    headers: target.headers,
    body: target.body,
    ...(target.rotate === undefined ? {} : { requests: rotating(target.rotate) }),
    connections,
    pipelining: 1,
    duration: seconds
  })
  const failedStatuses: Record<string, number> = {}
  for (const [code, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) {
    if (!code.startsWith('2')) failedStatuses[code] = count
  }
  return {
    // Completed responses over the measured time: per-second samples are too few in a 1.5 s quick round.
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    failedStatuses
  }
}

/** The failures of several runs, added up. */
function failuresOf (runs: Side[]): Pick<Side, 'non2xx' | 'errors' | 'failedStatuses'> {
  const failedStatuses: Record<string, number> = {}
  for (const run of runs) {
    for (const [code, count] of Object.entries(run.failedStatuses)) failedStatuses[code] = (failedStatuses[code] ?? 0) + count
  }
  return { non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0), errors: runs.reduce((sum, run) => sum + run.errors, 0), failedStatuses }
}

/** One side over its rounds: medians for timings, sums for failures. */
export function summarise (runs: Side[]): Side {
  return {
    rps: median(runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    ...failuresOf(runs)
  }
}

/** One measured run of one side, `seconds` long. */
export type Run = (seconds: number) => Promise<Side>

/**
 * Runs service and baseline alternately (A, B, A, B …) so that drift in the machine's load (it is
 * shared) falls on both sides alike, and compares their medians.
 */
export async function compareRuns (service: Run, baseline: Run, settings: LoadSettings): Promise<Comparison> {
  const { rounds, seconds, warmupSeconds } = settings
  if (warmupSeconds > 0) {
    await service(warmupSeconds)
    await baseline(warmupSeconds)
  }
  const serviceRuns: Side[] = []
  const baselineRuns: Side[] = []
  for (let round = 0; round < rounds; round++) {
    serviceRuns.push(await service(seconds))
    baselineRuns.push(await baseline(seconds))
  }
  const serviceSide = summarise(serviceRuns)
  const baselineSide = summarise(baselineRuns)
  const pairedRatio = median(serviceRuns.map((run, round) => run.rps / (baselineRuns[round] as Side).rps))
  return { service: serviceSide, baseline: baselineSide, ratio: serviceSide.rps / baselineSide.rps, pairedRatio }
}

/** Two targets under the same load, alternately. */
export function compare (service: Target, baseline: Target, settings: LoadSettings): Promise<Comparison> {
  const { connections } = settings
  return compareRuns((seconds) => fire(service, seconds, connections), (seconds) => fire(baseline, seconds, connections), settings)
}

/** Loads several targets at once (e.g. two instances), `connections` each; the sum of their rates, the worst latencies. */
export async function fireTogether (targets: Target[], seconds: number, connections: number): Promise<Side> {
  const sides = await Promise.all(targets.map((target) => fire(target, seconds, connections)))
  return {
    rps: sides.reduce((sum, side) => sum + side.rps, 0),
    p50: Math.max(...sides.map((side) => side.p50)),
    p99: Math.max(...sides.map((side) => side.p99)),
    ...failuresOf(sides)
  }
}

/** One row of the throughput table: a scenario's service against its baseline. */
export interface ScenarioResult {
  title: string
  baselineName: string
  /** The ratio to reach; null where the row only reports (how throughput grows with pool size or instances). */
  target: number | null
  comparison: Comparison
}
