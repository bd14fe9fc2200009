import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import rateLimit from '@fastify/rate-limit'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import Fastify from 'fastify'
import { test } from 'tap'
import { LOCAL_KEYS } from '../../src/http/rate-limit/counted-in-process.js'

/*
 * What the in-process count (src/http/rate-limit/counted-in-process.ts) takes from @fastify/rate-limit without the
 * library promising it: a new version that changes any of it fails here, not in production.
 */

const require = createRequire(import.meta.url)
type Count = { current: number, ttl: number }

/** incr's answer, and whether it came before incr returned. */
function incr (store: InstanceType<typeof LocalStore>, key: string, windowMs: number, max: number): { answer: Count | undefined, synchronous: boolean } {
  let answer: Count | undefined
  store.incr(key, (error, result) => {
    if (error !== null) throw error
    answer = result
  }, windowMs, max)
  return { answer, synchronous: answer !== undefined }
}

test('the in-memory store is the module the library itself counts with without Redis, at the path imported', async (t) => {
  const path = require.resolve('@fastify/rate-limit/store/LocalStore.js')
  t.equal(path, join(dirname(require.resolve('@fastify/rate-limit')), 'store', 'LocalStore.js'), 'a deep path the package lets us import')
  t.match(readFileSync(require.resolve('@fastify/rate-limit'), 'utf8'), /require\('\.\/store\/LocalStore(\.js)?'\)/,
    'the library\'s own hook counts in it when given no Redis')
})

test('LocalStore.incr answers synchronously, {current, ttl}, in a fixed window from the first call', async (t) => {
  const realNow = Date.now
  let now = realNow()
  Date.now = () => now
  t.teardown(() => { Date.now = realNow })
  const store = new LocalStore(false, false, LOCAL_KEYS)

  const first = incr(store, 'a', 60_000, 2)
  t.ok(first.synchronous, 'the callback runs before incr returns: the fast path reads its answer right after the call')
  t.match(first.answer, { current: 1, ttl: 60_000 })
  now += 1500
  t.match(incr(store, 'a', 60_000, 2).answer, { current: 2, ttl: 58_500 }, 'the window\'s milliseconds left')
  now += 1500
  t.match(incr(store, 'a', 60_000, 2).answer, { current: 3, ttl: 57_000 }, 'past the limit it counts on; the window is not restarted')
  t.match(incr(store, 'b', 60_000, 2).answer, { current: 1, ttl: 60_000 }, 'each key its own count')
  now += 57_000
  t.match(incr(store, 'a', 60_000, 2).answer, { current: 1, ttl: 60_000 }, 'a new window once the last one ended')
})

test(`the store keeps the ${LOCAL_KEYS} most recently counted keys, as the library's default does`, async (t) => {
  for (const store of [new LocalStore(false, false, LOCAL_KEYS), new LocalStore(false, false)]) {
    for (let i = 0; i < LOCAL_KEYS; i++) incr(store, `key-${i}`, 60_000, 10)
    t.equal(incr(store, 'key-0', 60_000, 10).answer?.current, 2, 'the first key is still counted')
    for (let i = 0; i < LOCAL_KEYS; i++) incr(store, `other-${i}`, 60_000, 10)
    t.equal(incr(store, 'key-0', 60_000, 10).answer?.current, 1, `forgotten after ${LOCAL_KEYS} other keys`)
  }
})

test('with enableDraftSpec the library answers RateLimit-Limit, -Remaining, -Reset, and Retry-After on a 429: the headers the fast path writes', async (t) => {
  const app = Fastify()
  t.teardown(async () => { await app.close() })
  await app.register(rateLimit, { global: false, enableDraftSpec: true, timeWindow: 60_000, max: 1 })
  app.get('/', { onRequest: app.rateLimit() }, async () => ({ ok: true }))
  const names = (headers: Record<string, unknown>) => Object.keys(headers).filter((name) => /rate|retry/i.test(name)).sort()
  const allowed = await app.inject('/')
  t.same(names(allowed.headers), ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'])
  const limited = await app.inject('/')
  t.equal(limited.statusCode, 429)
  t.same(names(limited.headers), ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'])
})
