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
    config: { primaryServices: [], executionMode: 'in-process', executionProvider: 'test' },
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
