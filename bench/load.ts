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
}

function rotating ({ header, values }: NonNullable<Target['rotate']>): autocannon.Request[] {
  let next = 0
  return [{
    setupRequest: (request) => ({ ...request, headers: { ...request.headers, [header]: values[next++ % values.length] as string } })
  }]
}

async function fire (target: Target, seconds: number, connections: number): Promise<Side> {
  const result = await autocannon({
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

function summarise (runs: Side[]): Side {
  const failedStatuses: Record<string, number> = {}
  for (const run of runs) {
    for (const [code, count] of Object.entries(run.failedStatuses)) failedStatuses[code] = (failedStatuses[code] ?? 0) + count
  }
  return {
    rps: median(runs.map((run) => run.rps)),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    failedStatuses
  }
}

/**
 * Loads service and baseline in alternating runs (A, B, A, B …) so that drift in the machine's load
 * (it is shared) falls on both sides alike, and compares their medians.
 */
export async function compare (service: Target, baseline: Target, settings: LoadSettings): Promise<Comparison> {
  const { connections, rounds, seconds, warmupSeconds } = settings
  if (warmupSeconds > 0) {
    await fire(service, warmupSeconds, connections)
    await fire(baseline, warmupSeconds, connections)
  }
  const serviceRuns: Side[] = []
  const baselineRuns: Side[] = []
  for (let round = 0; round < rounds; round++) {
    serviceRuns.push(await fire(service, seconds, connections))
    baselineRuns.push(await fire(baseline, seconds, connections))
  }
  const serviceSide = summarise(serviceRuns)
  const baselineSide = summarise(baselineRuns)
  return { service: serviceSide, baseline: baselineSide, ratio: serviceSide.rps / baselineSide.rps }
}
