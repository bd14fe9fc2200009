import type { Redis } from 'ioredis'
import type { Outage } from '../outage.js'
import { BEE_WINDOW_MS, decide, type BeeLimitDecision, type BeeLimiter } from './bee-limiter.js'

/** One round trip, atomic: the count and the window's remaining time, the window starting with its first call. */
const TAKE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`

/**
 * The counters shared by every instance on the same Redis, so a Bee's limit holds for the whole service. With Redis
 * unreachable the call goes through uncounted: the limit spares an upstream, and losing Redis must not stop the
 * service. Each such call counts toward Redis's outage, which is logged once, not with every call.
 */
export class RedisBeeLimiter implements BeeLimiter {
  readonly #redis: Redis
  readonly #prefix: string
  readonly #outage: Outage | null

  /** `prefix` starts every key: REDIS_KEY_PREFIX and this limiter's own, so deployments sharing a Redis keep apart. */
  constructor (redis: Redis, prefix: string, outage: Outage | null = null) {
    this.#redis = redis
    this.#prefix = prefix
    this.#outage = outage
  }

  async take (beeId: string, callsPerMinute: number): Promise<BeeLimitDecision> {
    let counted: [number, number]
    try {
      counted = await this.#redis.eval(TAKE, 1, this.#prefix + beeId, BEE_WINDOW_MS) as [number, number]
    } catch (error) {
      if (this.#outage === null) throw error
      this.#outage.failed(error, 'callsNotLimited')
      return { allowed: true }
    }
    return decide(counted[0], callsPerMinute, counted[1])
  }
}
