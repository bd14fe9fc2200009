import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { adminHeaders, balanceOf, build, createWallet, execute } from '../../helper.js'
import { beeBody, publish, publishingSetup as setup } from '../../publishing-helper.js'

// A Bee's own limit counts in windows of a minute: each test makes its calls within seconds of its first.

const input = { text: 'buzz' }

/** tools/call over MCP's Streamable HTTP, as a client without a session sends it. */
async function overMcp (app: FastifyInstance, name: string, args: object, headers: Record<string, string> = {}) {
  const response = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { accept: 'application/json, text/event-stream', ...headers },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }
  })
  const { result } = response.json()
  return { isError: result.isError === true, body: JSON.parse(result.content[0].text) }
}

/** SendMessage over A2A, the Bee and its input in one data part. */
async function overA2a (app: FastifyInstance, beeId: string, args: object) {
  const response = await app.inject({
    method: 'POST',
    url: '/a2a',
    headers: { 'a2a-version': '1.0' },
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ data: { beeId, input: args }, mediaType: 'application/json' }] } }
    }
  })
  const { status } = response.json().result.task
  return { state: status.state, body: status.message?.parts[1]?.data }
}

test('a publisher\'s limit counts every caller on every door together, and the next call is 429 BEE_RATE_LIMITED', async (t) => {
  const { app, fake, publisher } = await setup(t)
  const published = await publish(app, publisher.headers, beeBody('spared', fake.url, { rateLimit: { callsPerMinute: 3 } }))
  t.same((published as Record<string, unknown>).rateLimit, { callsPerMinute: 3 }, 'the owner sees the limit')

  t.equal((await execute(app, 'spared', input)).statusCode, 200, 'HTTP')
  t.equal((await overMcp(app, 'spared', input)).isError, false, 'MCP')
  t.equal((await overA2a(app, 'spared', input)).state, 'TASK_STATE_COMPLETED', 'A2A')
  t.equal(fake.calls.length, 3)

  const http = await execute(app, 'spared', input, undefined, { 'x-forwarded-for': '192.0.2.99' })
  t.equal(http.statusCode, 429, 'a caller that has not called yet is limited too: the count is the Bee\'s')
  const retryAfter = Number(http.headers['retry-after'])
  t.ok(retryAfter >= 1 && retryAfter <= 60, 'Retry-After: the rest of the minute')
  t.same(http.json(), {
    error: 'Too Many Requests',
    code: 'BEE_RATE_LIMITED',
    message: `spared takes at most 3 calls a minute from all its callers together (its own limit, whoever calls); retry in ${retryAfter} s. Nothing was charged.`,
    retryAfter
  })
  const mcp = await overMcp(app, 'spared', input)
  t.equal(mcp.isError, true, 'MCP: a tool error the model can act on')
  t.match(mcp.body, { code: 'BEE_RATE_LIMITED', retryAfter: Number })
  const a2a = await overA2a(app, 'spared', input)
  t.equal(a2a.state, 'TASK_STATE_REJECTED', 'A2A: the task is rejected')
  t.match(a2a.body, { code: 'BEE_RATE_LIMITED', retryAfter: Number })
  t.equal(fake.calls.length, 3, 'the upstream saw no more calls')

  t.equal((await execute(app, 'spared', { text: '' })).json().code, 'VALIDATION_FAILED', 'refused input is refused as ever')
  t.equal((await execute(app, 'text-summarizer', { text: 'Other Bees are not affected.' })).statusCode, 200)
})

test('input the Bee refuses never counts; a limited paid call is never charged; an Idempotency-Key replay still answers', async (t) => {
  const { app, fake, publisher } = await setup(t)
  await publish(app, publisher.headers, beeBody('paid-spared', fake.url, { rateLimit: { callsPerMinute: 2 }, pricing: { type: 'pay-per-use', costPerCall: 0.01 } }))
  const wallet = await createWallet(app, 1)
  for (let i = 0; i < 5; i++) t.equal((await execute(app, 'paid-spared', { text: '' }, wallet.token)).statusCode, 400)
  t.equal((await execute(app, 'paid-spared', input, wallet.token, { 'idempotency-key': 'first' })).statusCode, 200)
  t.equal((await execute(app, 'paid-spared', input, wallet.token)).statusCode, 200, 'the refused inputs did not count')
  const journal = async () => (await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=200`, headers: adminHeaders })).json().entries.length
  const [balance, entries] = [await balanceOf(app, wallet.id), await journal()]
  t.equal(balance, 0.98)

  const limited = await execute(app, 'paid-spared', input, wallet.token, { 'idempotency-key': 'second' })
  t.equal(limited.json().code, 'BEE_RATE_LIMITED')
  t.equal((await overMcp(app, 'paid-spared', input, { 'x-registry-wallet-token': wallet.token })).body.code, 'BEE_RATE_LIMITED')
  t.equal(await balanceOf(app, wallet.id), balance, 'nothing charged')
  t.equal(await journal(), entries, 'no journal rows: no hold was placed')
  const replay = await execute(app, 'paid-spared', input, wallet.token, { 'idempotency-key': 'first' })
  t.same([replay.statusCode, replay.headers['idempotent-replayed']], [200, 'true'], 'a replay reaches no upstream, so it is not limited')
  t.equal(fake.calls.length, 2)
})

test('the publisher changes or removes its limit with PATCH; a new Bee has none', async (t) => {
  const { app, fake, publisher } = await setup(t)
  await publish(app, publisher.headers, beeBody('open', fake.url))
  const patch = (rateLimit: unknown) => app.inject({ method: 'PATCH', url: '/api/bees/open', headers: publisher.headers, payload: { rateLimit } })
  t.equal((await app.inject({ method: 'PATCH', url: '/api/bees/open', headers: publisher.headers, payload: { name: 'Open' } })).json().rateLimit, null)

  t.same((await patch({ callsPerMinute: 1 })).json().rateLimit, { callsPerMinute: 1 })
  t.equal((await execute(app, 'open', input)).statusCode, 200)
  t.equal((await execute(app, 'open', input)).json().code, 'BEE_RATE_LIMITED')
  t.equal((await patch(null)).json().rateLimit, null, 'null removes it')
  t.equal((await execute(app, 'open', input)).statusCode, 200)
  for (const bad of [{ callsPerMinute: 0 }, { callsPerMinute: 1.5 }, { callsPerMinute: 1_000_001 }, { perMinute: 5 }, 5]) {
    t.equal((await patch(bad)).json().code, 'VALIDATION_FAILED', JSON.stringify(bad))
  }
})

test('the operator limits a built-in Bee with RATE_LIMIT_BUILTIN_BEES; a Bee that is not built in stops start-up', async (t) => {
  const app = await build(t, { env: { RATE_LIMIT_BUILTIN_BEES: 'text-summarizer=1' } })
  t.equal((await execute(app, 'text-summarizer', { text: 'One.' })).statusCode, 200)
  t.match((await execute(app, 'text-summarizer', { text: 'Two.' })).json(), { code: 'BEE_RATE_LIMITED', message: /^text-summarizer takes at most 1 call a minute/ })
  t.equal((await app.inject({ method: 'PATCH', url: '/api/bees/text-summarizer', headers: adminHeaders, payload: { status: 'active' } })).json().rateLimit.callsPerMinute, 1,
    'the operator sees it')
  await t.rejects(build(t, { env: { RATE_LIMIT_BUILTIN_BEES: 'text-sumariser=5' } }), /RATE_LIMIT_BUILTIN_BEES names text-sumariser, which is not a built-in Bee/)
})
