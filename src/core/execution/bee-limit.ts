import { RateLimitedError } from '../errors.js'
import type { BeeLimiter } from '../limits/bee-limiter.js'
import type { Execution, Step } from './execution.js'

/**
 * The Bee's own limit, shared by all its callers: it spares the upstream its publisher runs. It comes
 * after validation and the idempotency claim (a refused input or a replay never reaches the upstream,
 * so neither counts) and before the hold, so a limited call is never charged. A limiter that fails
 * lets the call through: the counters protect an upstream, and losing them must not stop the service.
 */
export async function limitBeeCalls (limiter: BeeLimiter, execution: Execution): Promise<Step> {
  const { bee, log } = execution
  if (bee.callsPerMinute === null) return { ok: true }
  let decision
  try {
    decision = await limiter.take(bee.record.id, bee.callsPerMinute)
  } catch (error) {
    log.warn({ err: error, beeId: bee.record.id }, 'Bee rate limit not checked: the limiter failed')
    return { ok: true }
  }
  if (decision.allowed) return { ok: true }
  const calls = `${bee.callsPerMinute} call${bee.callsPerMinute === 1 ? '' : 's'}`
  return {
    ok: false,
    error: new RateLimitedError('BEE_RATE_LIMITED', `${bee.record.id} takes at most ${calls} a minute from all its callers together ` +
      `(its own limit, whoever calls); retry in ${decision.retryAfterSeconds} s. Nothing was charged.`, decision.retryAfterSeconds)
  }
}
