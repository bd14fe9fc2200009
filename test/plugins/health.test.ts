import { test } from 'tap'
import { balanceOf, build, createWallet } from '../helper.js'

const sentiment = (token: string) => ({
  method: 'POST' as const,
  url: '/api/bees/sentiment-analyzer/execute',
  headers: { 'x-registry-wallet-token': token },
  payload: { text: 'A wonderful start.' }
})

test('just after start, /health answers and /ready is 503 NOT_READY with Retry-After until the models are in', async (t) => {
  const logLines: string[] = []
  const app = await build(t, { warmUp: false, logLines })
  const health = await app.inject('/health')
  t.equal(health.statusCode, 200)
  t.same(health.json(), { status: 'ok' })

  const starting = await app.inject('/ready')
  t.equal(starting.statusCode, 503)
  t.equal(starting.headers['retry-after'], '1')
  t.match(starting.json(), { error: 'Service Unavailable', code: 'NOT_READY', message: /sentiment-analyzer models/ })
  t.notOk(logLines.some((line) => (JSON.parse(line) as { level: number }).level >= 50), 'a probe during start-up logs no error')

  await app.warmUp.start()
  t.same((await app.inject('/ready')).json(), { status: 'ready' })
})

test('a call to the sentiment analyzer before its models are in waits for them and is answered, charged once', async (t) => {
  const app = await build(t, { warmUp: false })
  const wallet = await createWallet(app, 100)
  t.same(app.warmUp.pending(), ['sentiment-analyzer models'])
  const [first, second] = await Promise.all([app.inject(sentiment(wallet.token)), app.inject(sentiment(wallet.token))])
  for (const response of [first, second]) {
    t.equal(response.statusCode, 200)
    t.match(response.json(), { beeId: 'sentiment-analyzer', result: { sentiment: 'positive' } })
  }
  t.same(app.warmUp.pending(), [], 'the call loaded them')
  t.equal(await balanceOf(app, wallet.id), 100 - 2 * app.config.PRICE_SENTIMENT_ANALYZER)
  t.equal((await app.inject('/ready')).statusCode, 200)
})
