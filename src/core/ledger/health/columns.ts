import { LATENCY_BOUNDS_MS } from '../../health/latency.js'

/** The histogram's columns, one per bucket of LATENCY_BOUNDS_MS: ms_le_1, ms_le_2, …, then ms_over for the overflow. */
export type LatencyColumn = `ms_le_${typeof LATENCY_BOUNDS_MS[number]}` | 'ms_over'

export const latencyColumns: readonly LatencyColumn[] = [...LATENCY_BOUNDS_MS.map((bound) => `ms_le_${bound}` as const), 'ms_over']
