import rateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyRequest, type onRequestHookHandler } from 'fastify'
import { test } from 'tap'
import { RateLimitedError } from '../../src/core/errors.js'
import { countedInProcess } from '../../src/http/rate-limit/counted-in-process.js'
import { libraryOptions, type Counting } from '../../src/http/rate-limit/counting.js'
import errors from '../../plugins/errors.js'

const WINDOW_MS = 60_000
const limits = { anonymous: 2, wallet: 3, publisher: 0 }
type Caller = keyof typeof limits

/**
 * Counting as plugins/rate-limit.ts sets it up: an anonymous caller known at once by its address, a wallet or a
 * publisher only after a lookup (a promise), each class with its own limit, the publishers' unlimited.
 */
function counting (): Counting {
  const classes = new WeakMap<FastifyRequest, Caller>()
  return {
    keyOf: (request) => {
      const wallet = request.headers['x-wallet']
      const publisher = request.headers['x-publisher']
      if (typeof wallet !== 'string' && typeof publisher !== 'string') return `anonymous:${request.ip}`
      return Promise.resolve().then(() => {
        classes.set(request, typeof wallet === 'string' ? 'wallet' : 'publisher')
        return typeof wallet === 'string' ? `wallet:${wallet}` : `publisher:${String(publisher)}`
      })
    },
    maxOf: (request) => limits[classes.get(request) ?? 'anonymous'],
    windowMs: WINDOW_MS,
    refusal: (request, max, ttlMs) => new RateLimitedError('RATE_LIMITED', `Too many requests from ${classes.get(request) ?? 'anonymous'}: ` +
      `at most ${max}.`, Math.ceil(ttlMs / 1000)),
    someUnlimited: true
  }
}

/** A bare app with the service's error handler, limited by `hook`. */
async function appLimitedBy (hook: (app: ReturnType<typeof Fastify>) => Promise<onRequestHookHandler>) {
  const app = Fastify()
  await app.register(errors)
  const limit = await hook(app)
  app.get('/', { onRequest: limit }, async () => ({ ok: true }))
  await app.ready()
  return app
}

test('counted in process or by @fastify/rate-limit\'s own hook without Redis, the same requests get the same answers', async (t) => {
  // The store's windows follow Date.now: a clock of the test's own moves them on, the same for both.
  const realNow = Date.now
  let now = realNow()
  Date.now = () => now
  t.teardown(() => { Date.now = realNow })

  const apps = {
    inProcess: await appLimitedBy(async () => countedInProcess(counting())),
    library: await appLimitedBy(async (app) => {
      await app.register(rateLimit, libraryOptions(counting()))
      return app.rateLimit()
    })
  }
  t.teardown(async () => { await Promise.all(Object.values(apps).map(async (app) => { await app.close() })) })

  const anonymous = (address: string) => ({ remoteAddress: address })
  const wallet = (id: string) => ({ remoteAddress: '192.0.2.1', headers: { 'x-wallet': id } })
  const publisher = { remoteAddress: '192.0.2.1', headers: { 'x-publisher': 'p1' } }
  const steps: Array<{ name: string, request?: object, advanceMs?: number }> = [
    { name: 'an address, under its limit', request: anonymous('192.0.2.1') },
    { name: 'the address, at its limit', request: anonymous('192.0.2.1') },
    { name: 'the address, over its limit', request: anonymous('192.0.2.1') },
    { name: 'another address, counted apart', request: anonymous('192.0.2.2') },
    { name: 'a wallet, from the spent address', request: wallet('w1') },
    { name: 'the wallet again', request: wallet('w1') },
    { name: 'the wallet, at its limit', request: wallet('w1') },
    { name: 'twenty seconds on', advanceMs: 20_000 },
    { name: 'the wallet, over its limit', request: wallet('w1') },
    { name: 'the address, still over', request: anonymous('192.0.2.1') },
    { name: 'a publisher, unlimited', request: publisher },
    { name: 'the publisher again', request: publisher },
    { name: 'the publisher a third time', request: publisher },
    { name: 'the window ends', advanceMs: WINDOW_MS },
    { name: 'the address, in a new window', request: anonymous('192.0.2.1') },
    { name: 'the wallet, in a new window', request: wallet('w1') }
  ]
  const statuses: number[] = []
  for (const { name, request, advanceMs } of steps) {
    if (advanceMs !== undefined) {
      now += advanceMs
      continue
    }
    const [inProcess, library] = await Promise.all([apps.inProcess.inject({ url: '/', ...request }), apps.library.inject({ url: '/', ...request })])
    const seen = (response: typeof inProcess) => ({
      status: response.statusCode,
      headers: Object.fromEntries(Object.entries(response.headers).filter(([header]) => /^(ratelimit-|retry-after)/.test(header))),
      body: response.json()
    })
    t.same(seen(inProcess), seen(library), name)
    statuses.push(inProcess.statusCode)
  }
  t.same(statuses, [200, 200, 429, 200, 200, 200, 200, 429, 429, 200, 200, 200, 200, 200],
    'under, at and over each limit, an unlimited class, and a new window')
})
