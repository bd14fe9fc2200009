import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { test } from 'tap'
import { MemoryBeeLimiter, type BeeLimiter } from '../../../src/core/limits/bee-limiter.js'
import { RedisBeeLimiter } from '../../../src/core/limits/redis-bee-limiter.js'
import type { Logger } from '../../../src/core/logger.js'
import { Outage } from '../../../src/core/outage.js'

const redisUrl = process.env.TEST_REDIS_URL
const redisSkip = redisUrl === undefined || redisUrl === '' ? 'TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)' : false

/** Takes `n` calls to one Bee and returns whether each was allowed. */
async function takes (limiter: BeeLimiter, beeId: string, perMinute: number, n: number): Promise<boolean[]> {
  const allowed: boolean[] = []
  for (let i = 0; i < n; i++) allowed.push((await limiter.take(beeId, perMinute)).allowed)
  return allowed
}

test('in memory: the first calls of the minute up to the limit pass, then the rest of the minute is refused', async (t) => {
  const limiter = new MemoryBeeLimiter()
  t.same(await takes(limiter, 'a', 2, 4), [true, true, false, false])
  t.same(await takes(limiter, 'b', 1, 1), [true], 'each Bee counts on its own')
  const refused = await limiter.take('a', 2)
  t.ok(!refused.allowed && refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60, 'retry when the minute ends')
  t.same(await takes(limiter, 'a', 10, 1), [true], 'a raised limit lets the next call through within the same minute')
})

test('in memory: windows that ended are dropped, so the counters hold the Bees called lately, not every Bee called', async (t) => {
  let now = 0
  const limiter = new MemoryBeeLimiter(() => now)
  t.same(await takes(limiter, 'kept', 1, 2), [true, false])
  for (let i = 0; i < 3000; i++) await limiter.take(`old-${i}`, 5)
  now += 60_000
  t.same(await takes(limiter, 'kept', 1, 2), [true, false], 'a new minute: the limit counts afresh')
  for (let i = 0; i < 3000; i++) await limiter.take(`new-${i}`, 5)
  t.ok(limiter.size <= 3001 + 1, `only this minute's Bees are held (${limiter.size})`)
  t.same(await takes(limiter, 'new-0', 1, 1), [false], 'a Bee of this minute keeps its count through a sweep')
})

test('in Redis: instances count together, and concurrent calls never let more than the limit through', { skip: redisSkip }, async (t) => {
  const [one, two] = [new Redis(redisUrl as string), new Redis(redisUrl as string)]
  t.teardown(async () => { await one.quit(); await two.quit() })
  // Counters outlive a run: each run counts under a prefix of its own.
  const prefix = `apiary-test:${randomBytes(6).toString('hex')}:`
  const [a, b] = [new RedisBeeLimiter(one, prefix), new RedisBeeLimiter(two, prefix)]
  const decisions = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).take('shared', 15)))
  t.equal(decisions.filter((decision) => decision.allowed).length, 15, 'exactly the limit, across both')
  const refused = decisions.find((decision) => !decision.allowed)
  t.ok(refused !== undefined && !refused.allowed && refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60)
  const ttl = await one.pttl(`${prefix}shared`)
  t.ok(ttl > 0 && ttl <= 60_000, 'the counter expires with its minute')
})

test('in Redis, unreachable: the call goes through uncounted, and Redis\'s outage counts it instead of a line per call', async (t) => {
  // Nothing listens on port 9: every command fails at once (no offline queue), as it does while Redis is away.
  const gone = new Redis('redis://127.0.0.1:9', { lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null })
  gone.on('error', () => {})
  t.teardown(() => { gone.disconnect() })
  const lines: string[] = []
  const log = { error: (_: unknown, msg: string) => lines.push(msg), warn: (_: unknown, msg: string) => lines.push(msg) } as unknown as Logger
  const outage = new Outage({ dependency: 'Redis', meanwhile: 'unlimited', log })
  t.teardown(() => { outage.close() })
  const limiter = new RedisBeeLimiter(gone, 'apiary-test:', outage)
  t.same(await takes(limiter, 'guarded', 1, 3), [true, true, true], 'over its limit, and let through')
  t.ok(outage.down)
  t.same(lines, ['Redis unavailable: unlimited'], 'one line for three calls')
  outage.recovered()
  t.match(lines[1], 'Redis back')
})
