import type { BeeHealth } from '../schemas.js'

/**
 * The order of `sort=reliability`: the higher success rate first, then the lower p95 latency; Bees without runs
 * in the window last (nothing is known of them, which is not the same as failing). Ties keep the order given.
 */
export function byReliability (a: BeeHealth, b: BeeHealth): number {
  if (a.successRate === null || b.successRate === null) return (a.successRate === null ? 1 : 0) - (b.successRate === null ? 1 : 0)
  return b.successRate - a.successRate || (a.p95Ms ?? 0) - (b.p95Ms ?? 0)
}

/** Whether a Bee meets a minimum success rate: one without runs in the window does not (it has no rate to meet it with). */
export const meetsSuccessRate = (health: BeeHealth, minimum: number) => health.successRate !== null && health.successRate >= minimum
