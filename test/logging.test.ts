import { test } from 'tap'
import { ADMIN_TOKEN, build, createWallet } from './helper.js'

test('wallet tokens and the admin token never reach the logs', async (t) => {
  const lines: string[] = []
  const app = await build(t, { logLines: lines })
  const wallet = await createWallet(app, 1)
  await app.inject({
    method: 'POST',
    url: '/api/bees/sentiment-analyzer/execute',
    payload: { text: 'Great service.' },
    headers: { 'x-registry-wallet-token': wallet.token }
  })
  await app.inject({ url: '/api/wallet', headers: { 'x-registry-wallet-token': wallet.token } })
  // An error path logs the request too.
  app.registry.register({
    id: 'always-fails',
    name: 'Always fails',
    description: 'Throws.',
    category: 'utility',
    colony: 'test',
    type: 'builtin',
    ownerId: null,
    pricing: { type: 'pay-per-use', costPerCall: 0.001, currency: 'USD' },
    config: { primaryServices: [], executionMode: 'sync', executionProvider: 'test' },
    inputSchema: { type: 'object' } as never,
    outputSchema: { type: 'object' } as never,
    async execute () { throw new Error('failure') }
  })
  const failed = await app.inject({
    method: 'POST',
    url: '/api/bees/always-fails/execute',
    payload: {},
    headers: { 'x-registry-wallet-token': wallet.token }
  })
  t.equal(failed.statusCode, 500)

  const log = lines.join('')
  const completed = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request completed')
  t.equal(completed.length, 4, 'one line per request')
  t.ok(completed.every((entry) => typeof entry.reqId === 'string' && typeof entry.statusCode === 'number'), 'each with its request id and status')
  t.notMatch(log, wallet.token, 'no wallet token')
  t.notMatch(log, ADMIN_TOKEN, 'no admin token')
  t.match(log, '"msg":"request failed"', 'the failure is logged')
})

test('a completed request\'s line is pino\'s own JSON line: its members in pino\'s order, nothing else; none below LOG_LEVEL', async (t) => {
  const lines: string[] = []
  const app = await build(t, { logLines: lines })
  const answered = await app.inject({ url: '/api/bees?category=text%22quoted\\', headers: { 'x-request-id': 'gw-1:a/b' } })
  t.equal(answered.statusCode, 200)
  const [line, ...others] = lines.filter((one) => one.includes('"request completed"'))
  t.equal(others.length, 0, 'one line')
  const entry = JSON.parse(line ?? '')
  t.same(Object.keys(entry), ['level', 'time', 'pid', 'hostname', 'reqId', 'method', 'url', 'statusCode', 'responseTime', 'msg'])
  t.match(entry, { level: 30, pid: process.pid, reqId: 'gw-1:a/b', method: 'GET', url: '/api/bees?category=text%22quoted\\', statusCode: 200, msg: 'request completed' })
  t.ok(Math.abs(entry.time - Date.now()) < 60_000 && entry.responseTime > 0, 'the time in epoch ms, the response time in ms')
  t.equal(line, `${JSON.stringify(entry)}\n`, 'exactly what JSON.stringify writes of it, as pino does')

  const quiet: string[] = []
  const warnOnly = await build(t, { logLines: quiet, env: { LOG_LEVEL: 'warn' } })
  await warnOnly.inject({ url: '/api/bees' })
  t.notOk(quiet.some((one) => one.includes('"request completed"')), 'no line below the configured level')
})

test('credentials a client puts in the query string are redacted from the log line', async (t) => {
  const lines: string[] = []
  const app = await build(t, { logLines: lines })
  const wallet = await createWallet(app, 1)
  const secrets = [wallet.token, 'hunter2-password', 'sig-0123456789', 'apiKey-42', 'session-abc']
  await app.inject({ url: `/api/wallet?token=${wallet.token}&limit=5` })
  await app.inject({ url: `/api/bees?Access_Token=${ADMIN_TOKEN}&q=weather&API_KEY=apiKey-42` })
  await app.inject({ url: '/api/bees?password=hunter2-password&X-Signature=sig-0123456789&sessionId=session-abc' })
  await app.inject({ url: `/api/bees?anything=${encodeURIComponent(wallet.token)}` })
  await app.inject({ url: `/api/wallets/%zz?wallet_token=${wallet.token}` })
  const log = lines.join('')
  for (const secret of [...secrets, ADMIN_TOKEN]) t.notMatch(log, secret, `${secret.slice(0, 12)}… is not logged`)
  const urls = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request completed').map((entry) => entry.url)
  t.same(urls, [
    '/api/wallets',
    '/api/wallet?token=[redacted]&limit=5',
    '/api/bees?Access_Token=[redacted]&q=weather&API_KEY=[redacted]',
    '/api/bees?password=[redacted]&X-Signature=[redacted]&sessionId=[redacted]',
    '/api/bees?anything=[redacted]',
    '/api/wallets/%zz?wallet_token=[redacted]'
  ], 'other parameters stay readable')
})

test('a gateway\'s X-Request-Id is kept; an oversized or odd one is replaced by a fresh UUID', async (t) => {
  const lines: string[] = []
  const app = await build(t, { logLines: lines })
  const wallet = await createWallet(app, 1)
  const execute = (requestId: string) => app.inject({
    method: 'POST',
    url: '/api/bees/sentiment-analyzer/execute',
    payload: { text: 'Great service.' },
    headers: { 'x-registry-wallet-token': wallet.token, 'x-request-id': requestId }
  })
  for (const kept of ['gateway-42', 'Root=1-67891233-abcdef012345678912345678', '0af7651916cd43dd8448eb211c80319c', 'a'.repeat(128)]) {
    t.equal((await execute(kept)).headers['x-request-id'], kept, `${kept.slice(0, 40)} is kept`)
  }
  const huge = 'x'.repeat(15_000)
  for (const replaced of [huge, 'a'.repeat(129), 'has space', 'new\u00e9line', '<script>']) {
    const response = await execute(replaced)
    t.equal(response.statusCode, 200)
    t.match(response.headers['x-request-id'], /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, `${replaced.slice(0, 20)} is replaced`)
  }
  t.notMatch(lines.join(''), huge, 'the 15 kB id is not logged')
  const journal = await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=200`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  const requestIds = journal.json<{ entries: Array<{ requestId: string | null }> }>().entries.map((entry) => entry.requestId ?? '')
  t.ok(requestIds.every((id) => id.length <= 128), 'no journal entry keeps an oversized id')
})
