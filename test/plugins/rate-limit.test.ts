import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { adminHeaders, balanceOf, build, createWallet, execute } from '../helper.js'
import { createPublisher } from '../publishing-helper.js'

/** Why the tests that share counters through Redis are skipped, or false when they run. */
const redisSkip = process.env.TEST_REDIS_URL === undefined || process.env.TEST_REDIS_URL === ''
  ? 'TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)'
  : false

/** An hour's window: no test runs long enough to see one end, so no assertion depends on timing. */
const limits = (anonymous: number, wallet: number, publisher: number) => ({
  RATE_LIMIT_WINDOW_SECONDS: '3600',
  RATE_LIMIT_ANONYMOUS_PER_WINDOW: String(anonymous),
  RATE_LIMIT_WALLET_PER_WINDOW: String(wallet),
  RATE_LIMIT_PUBLISHER_PER_WINDOW: String(publisher)
})

/** A client address of its own (the gateway's X-Forwarded-For is trusted): counters in Redis outlive a run. */
const someAddress = () => `10.${[...randomBytes(3)].join('.')}`
const from = (address: string) => ({ 'x-forwarded-for': address })

const discover = (app: FastifyInstance, headers: Record<string, string> = {}) => app.inject({ url: '/api/bees', headers })

test('an anonymous caller is counted by its address; past its limit it gets 429 with Retry-After and RateLimit-*', async (t) => {
  const app = await build(t, { env: limits(2, 0, 0) })
  const first = await discover(app)
  t.equal(first.statusCode, 200)
  t.match(first.headers, { 'ratelimit-limit': '2', 'ratelimit-remaining': '1' }, 'answers under the limit say how many are left')
  t.ok(Number(first.headers['ratelimit-reset']) > 3500, 'and when the window ends')
  t.equal((await discover(app)).statusCode, 200)

  const limited = await discover(app)
  t.equal(limited.statusCode, 429)
  t.match(limited.headers, { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'content-type': /^application\/json/ })
  const retryAfter = Number(limited.headers['retry-after'])
  t.ok(retryAfter > 3500 && retryAfter <= 3600, 'Retry-After: the rest of the window')
  t.same(limited.json(), {
    error: 'Too Many Requests',
    code: 'RATE_LIMITED',
    message: `Too many requests from this address: at most 2 every 3600 s. Retry in ${retryAfter} s (Retry-After); nothing was charged.`,
    retryAfter
  })
  t.equal((await discover(app, from('192.0.2.7'))).statusCode, 200, 'another address has its own count')
  t.equal((await discover(app, from('2001:db8:1:2::1'))).statusCode, 200)
  t.equal((await discover(app, from('2001:db8:1:2::1'))).statusCode, 200)
  t.equal((await discover(app, from('2001:db8:1:2:ffff::9'))).statusCode, 429, 'an IPv6 /64 counts as one address')
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: 'Hi.' } })).statusCode, 429,
    'every route is limited, execute routes too')
})

test('a wallet, and a publisher key or the admin token, are counted apart from the address, each by its own limit', async (t) => {
  const app = await build(t, { env: limits(1, 2, 3) })
  const publisher = await createPublisher(app)
  const [one, two] = [await createWallet(app, 1), await createWallet(app, 1)]
  const own = (token: string) => ({ 'x-registry-wallet-token': token })

  t.equal((await discover(app)).statusCode, 200)
  t.equal((await discover(app)).statusCode, 429, 'the address is spent')
  for (let i = 0; i < 2; i++) t.equal((await discover(app, own(one.token))).statusCode, 200, 'a wallet has its own count')
  t.match((await discover(app, own(one.token))), { statusCode: 429, body: /from this wallet: at most 2/ })
  t.equal((await discover(app, own(two.token))).statusCode, 200, 'each wallet its own')
  t.match((await discover(app, own('awt_made-up'))), { statusCode: 429, body: /from this address/ },
    'a token no wallet has counts as the address: a made-up token per request dodges nothing')

  const key = publisher.headers
  for (let i = 0; i < 3; i++) t.equal((await app.inject({ url: '/api/bees', headers: key })).statusCode, 200, 'a publisher key has its own count')
  t.match(await app.inject({ method: 'DELETE', url: '/api/bees/anything', headers: key }), { statusCode: 429, body: /from this key: at most 3/ },
    'checked before the credential is: the route would have said 404')
  t.match(await app.inject({ method: 'POST', url: '/api/bees', headers: { authorization: 'Bearer wrong' } }), { statusCode: 429, body: /this address/ },
    'a key no publisher has counts as the address')
  // The helper's createPublisher and createWallet above spent 3 of the admin token's count.
  t.match(await app.inject({ url: '/api/wallets', headers: adminHeaders }), { statusCode: 429, body: /from this key/ }, 'the admin token counts as a key')
})

test('a limit of 0 turns its class off; /health and /ready are never limited', async (t) => {
  const app = await build(t, { env: limits(1, 0, 0) })
  const wallet = await createWallet(app, 1)
  for (let i = 0; i < 5; i++) {
    const response = await discover(app, { 'x-registry-wallet-token': wallet.token })
    t.equal(response.statusCode, 200)
    t.notOk('ratelimit-limit' in response.headers, 'no limit, no headers')
  }
  t.equal((await discover(app)).statusCode, 200)
  t.equal((await discover(app)).statusCode, 429)
  for (const url of ['/health', '/ready', '/health', '/ready']) {
    const probe = await app.inject({ url })
    t.equal(probe.statusCode, 200, url)
    t.notOk('ratelimit-limit' in probe.headers, `${url} is not counted`)
  }
})

test('a limited paid call is never charged: the balance stays and nothing is journaled', async (t) => {
  const app = await build(t, { env: limits(0, 2, 0) })
  const wallet = await createWallet(app, 1)
  const journal = async () => (await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=200`, headers: adminHeaders })).json().entries.length
  for (let i = 0; i < 2; i++) t.equal((await execute(app, 'sentiment-analyzer', { text: 'Lovely.' }, wallet.token)).statusCode, 200)
  const [balance, entries] = [await balanceOf(app, wallet.id), await journal()]
  t.equal(balance, 0.998)
  for (let i = 0; i < 3; i++) {
    const limited = await execute(app, 'sentiment-analyzer', { text: 'Lovely.' }, wallet.token, { 'idempotency-key': `k-${i}` })
    t.equal(limited.json().code, 'RATE_LIMITED')
    t.notOk('x-registry-cost' in limited.headers)
  }
  t.equal(await balanceOf(app, wallet.id), balance, 'the balance is unchanged')
  t.equal(await journal(), entries, 'no journal rows')
})

test('every limited route declares its 429 in the OpenAPI document, the probes none', async (t) => {
  const app = await build(t, { env: limits(1000, 0, 0) })
  const document = (await app.inject('/openapi/openapi.json')).json()
  const operations = Object.entries(document.paths as Record<string, Record<string, any>>)
    .flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ name: `${method} ${path}`, responses: operation.responses })))
  for (const { name, responses } of operations) {
    if (name === 'get /health' || name === 'get /ready') t.notOk(responses[429], `${name} is never limited`)
    else {
      const given = responses[429]?.$ref === undefined ? responses[429] : document.components.responses[responses[429].$ref.split('/').pop()]
      t.match(given, { headers: { 'retry-after': {}, 'ratelimit-limit': {} } }, name)
    }
  }
  const shared = document.components.responses.RateLimited
  t.same(document.paths['/api/bees'].get.responses[429], { $ref: '#/components/responses/RateLimited' })
  t.same(shared.content['application/json'].schema.allOf[1].properties.code.enum, ['RATE_LIMITED'])
  t.match(document.components.schemas.RateLimited.allOf[1].required, ['retryAfter'], 'the body says when to retry')
})

test('with REDIS_URL every instance shares the counters', { skip: redisSkip }, async (t) => {
  const env = { ...limits(3, 0, 0), REDIS_URL: process.env.TEST_REDIS_URL as string }
  const [a, b] = [await build(t, { env }), await build(t, { env })]
  const address = from(someAddress())
  const statuses = []
  for (const app of [a, b, a, b]) statuses.push((await discover(app, address)).statusCode)
  t.same(statuses, [200, 200, 200, 429], 'three calls in all, whichever instance takes them')
  t.equal((await discover(b, address)).headers['ratelimit-remaining'], '0')
})

test('counted in process or in Redis, a caller sees the same headers, the same 429 and the same body', { skip: redisSkip }, async (t) => {
  // Without Redis the counting is the service's own fast path over the library's store; with it, the library's hook.
  const apps = {
    inProcess: await build(t, { env: limits(2, 2, 0) }),
    redis: await build(t, { env: { ...limits(2, 2, 0), REDIS_URL: process.env.TEST_REDIS_URL as string } })
  }
  const seen: Record<string, unknown[]> = {}
  for (const [name, app] of Object.entries(apps)) {
    const wallet = await createWallet(app, 1)
    const address = from(someAddress())
    const answers = []
    for (const headers of [address, address, address, { ...address, 'x-registry-wallet-token': wallet.token }, { ...address, 'x-registry-wallet-token': wallet.token },
      { ...address, 'x-registry-wallet-token': wallet.token }]) {
      const response = await discover(app, headers)
      const limitHeaders = Object.fromEntries(Object.entries(response.headers).filter(([header]) => /^(ratelimit-|retry-after)/.test(header))
        // The seconds left differ by when each window began: whole seconds of an hour, the same to within one.
        .map(([header, value]) => [header, /reset|retry/.test(header) ? Math.round(Number(value) / 10) : value]))
      const body = response.statusCode === 429 ? { ...response.json(), retryAfter: 'checked below', message: response.json().message.replace(/Retry in \d+ s/, 'Retry in N s') } : null
      if (response.statusCode === 429) t.equal(response.json().retryAfter, Number(response.headers['retry-after']), `${name}: the body's retryAfter is Retry-After`)
      answers.push({ status: response.statusCode, limitHeaders, body })
    }
    seen[name] = answers
  }
  t.same(seen.inProcess, seen.redis, 'the same answers, request for request')
  t.same(seen.inProcess?.map((answer) => (answer as { status: number }).status), [200, 200, 429, 200, 200, 429], 'the address, then the wallet, each past its limit')
})

test('deployments sharing one Redis with their own REDIS_KEY_PREFIX do not share counters', { skip: redisSkip }, async (t) => {
  // Prefixes of this run only: keys in Redis outlive it.
  const [mine, theirs] = [`t-${randomBytes(6).toString('hex')}:`, `t-${randomBytes(6).toString('hex')}:`]
  const env = (prefix: string) => ({ ...limits(2, 0, 0), RATE_LIMIT_BUILTIN_BEES: 'text-summarizer=1', REDIS_URL: process.env.TEST_REDIS_URL as string, REDIS_KEY_PREFIX: prefix })
  const [a, other, b] = [await build(t, { env: env(mine) }), await build(t, { env: env(theirs) }), await build(t, { env: env(mine) })]
  const address = from(someAddress())
  const statuses = []
  for (const app of [a, other, b]) statuses.push((await discover(app, address)).statusCode)
  t.same(statuses, [200, 200, 200], 'the other deployment\'s call did not count against this one')
  t.equal((await discover(b, address)).statusCode, 429, 'this deployment\'s instances count together')

  const summarize = (app: FastifyInstance) => execute(app, 'text-summarizer', { text: 'Hello there, friend.' }, undefined, from(someAddress()))
  const calls = []
  for (const app of [a, other, b]) calls.push((await summarize(app)).json().code ?? 'OK')
  t.same(calls, ['OK', 'OK', 'BEE_RATE_LIMITED'], 'a Bee\'s own limit, likewise')
})

test('a REDIS_URL that does not answer stops start-up naming it', async (t) => {
  await t.rejects(build(t, { env: { REDIS_URL: 'redis://user:secret@127.0.0.1:9' } }), /^REDIS_URL: cannot connect to Redis at 127\.0\.0\.1:9: .*ECONNREFUSED/)
})
