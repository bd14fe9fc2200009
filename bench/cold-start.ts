import type { Server } from './children.js'
import { median } from './stats.js'

export interface ColdStart {
  spawns: number
  /** Medians, spawn to first 200 on /health. */
  serviceMs: number
  baselineMs: number
  ratio: number
}

async function timed (start: () => Promise<Server>): Promise<number> {
  const server = await start()
  await server.stop()
  return server.startupMs
}

/** Alternates spawns of the two, so a burst of noise on the shared machine hits both. */
export async function coldStart (spawns: number, service: (i: number) => Promise<Server>, baseline: () => Promise<Server>): Promise<ColdStart> {
  const serviceTimes: number[] = []
  const baselineTimes: number[] = []
  for (let i = 0; i < spawns; i++) {
    serviceTimes.push(await timed(() => service(i)))
    baselineTimes.push(await timed(baseline))
  }
  const serviceMs = median(serviceTimes)
  const baselineMs = median(baselineTimes)
  return { spawns, serviceMs, baselineMs, ratio: serviceMs / baselineMs }
}
