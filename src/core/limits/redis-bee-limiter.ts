import type { Redis } from 'ioredis'
import { BEE_WINDOW_MS, decide, type BeeLimitDecision, type BeeLimiter } from './bee-limiter.js'

/** One round trip, atomic: the count and the window's remaining time, the window starting with its first call. */
const TAKE = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {count, redis.call('PTTL', KEYS[1])}
`

/** The counters shared by every instance on the same Redis, so a Bee's limit holds for the whole service. */
export class RedisBeeLimiter implements BeeLimiter {
  readonly #redis: Redis
  readonly #prefix: string

  /** `prefix` starts every key: REDIS_KEY_PREFIX and this limiter's own, so deployments sharing a Redis keep apart. */
  constructor (redis: Redis, prefix: string) {
    this.#redis = redis
    this.#prefix = prefix
  }

  async take (beeId: string, callsPerMinute: number): Promise<BeeLimitDecision> {
    const [count, remainingMs] = await this.#redis.eval(TAKE, 1, this.#prefix + beeId, BEE_WINDOW_MS) as [number, number]
    return decide(count, callsPerMinute, remainingMs)
  }
}
