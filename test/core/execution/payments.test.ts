import { test } from 'tap'
import { adminHeaders, balanceOf, build, createWallet, execute } from '../../helper.js'
import { startFakeOpenMeteo } from '../../fake-open-meteo.js'
import { loadConfig } from '../../../src/config.js'

const sentiment = '/api/bees/sentiment-analyzer/execute'
const body = { text: 'I love this wonderful library, it works great.' }

const transactionDetails = { beeId: 'sentiment-analyzer', cost: 0.001, currency: 'USD', requiredHeader: 'X-Registry-Wallet-Token' }

test('a pay-per-use Bee without a wallet token is a 402 with the price and how to pay it', async (t) => {
  const app = await build(t)
  const response = await app.inject({ method: 'POST', url: sentiment, payload: body })
  t.equal(response.statusCode, 402)
  t.same(response.json(), {
    error: 'Payment Required',
    code: 'WALLET_TOKEN_MISSING',
    message: 'sentiment-analyzer costs 0.001 USD a call: send a funded wallet token in X-Registry-Wallet-Token.',
    transactionDetails: {
      ...transactionDetails,
      howToPay: 'Send the same request again with the header X-Registry-Wallet-Token set to the token of a USD wallet ' +
        'holding at least 0.001 USD; this service\'s operator issues wallets and their tokens.'
    }
  }, 'no wallet docs configured: no link')
})

test('with WALLET_DOCS_URL, every 402 links to it, priced as the Bee is', async (t) => {
  t.throws(() => loadConfig({ WALLET_DOCS_URL: 'docs/wallets' }), /WALLET_DOCS_URL/, 'the link is an absolute URL')
  const walletDocs = 'https://docs.example.com/apiary#wallets-and-payments'
  const app = await build(t, { env: { WALLET_DOCS_URL: walletDocs, PRICE_WEATHER_SENSOR: '0.25' } })
  const poor = await createWallet(app, 0.1)
  const missing = await app.inject({ method: 'POST', url: sentiment, payload: body })
  const unfunded = await execute(app, 'weather-sensor', { latitude: 1, longitude: 2 }, poor.token)
  t.equal(missing.statusCode, 402)
  t.match(missing.json().transactionDetails, { walletDocs, howToPay: /at least 0\.001 USD; .*\(see walletDocs\)\.$/ })
  t.equal(unfunded.statusCode, 402)
  t.match(unfunded.json(), {
    code: 'INSUFFICIENT_FUNDS',
    transactionDetails: { beeId: 'weather-sensor', cost: 0.25, walletDocs, howToPay: /USD wallet holding at least 0\.25 USD/ }
  })
})

test('an unknown wallet token is a 402 WALLET_NOT_FOUND', async (t) => {
  const app = await build(t)
  const response = await app.inject({ method: 'POST', url: sentiment, payload: body, headers: { 'x-registry-wallet-token': 'awt_nope' } })
  t.equal(response.statusCode, 402)
  t.match(response.json(), { code: 'WALLET_NOT_FOUND', transactionDetails })
})

test('a wallet that cannot cover the price is a 402 INSUFFICIENT_FUNDS and is not debited', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 0.0005)
  const response = await app.inject({ method: 'POST', url: sentiment, payload: body, headers: { 'x-registry-wallet-token': wallet.token } })
  t.equal(response.statusCode, 402)
  t.match(response.json(), { code: 'INSUFFICIENT_FUNDS', message: /holds 0\.0005 USD/, transactionDetails })
  t.equal(await balanceOf(app, wallet.id), 0.0005)
})

test('a wallet in another currency is a 402 CURRENCY_MISMATCH', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 5, { currency: 'EUR' })
  const response = await app.inject({ method: 'POST', url: sentiment, payload: body, headers: { 'x-registry-wallet-token': wallet.token } })
  t.equal(response.statusCode, 402)
  t.equal(response.json().code, 'CURRENCY_MISMATCH')
  t.equal(await balanceOf(app, wallet.id), 5)
})

test('a paid call holds the price, captures it with the answer, and reports cost and balance in headers', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const response = await app.inject({ method: 'POST', url: sentiment, payload: body, headers: { 'x-registry-wallet-token': wallet.token } })
  t.equal(response.statusCode, 200)
  t.equal(response.json().result.sentiment, 'positive')
  t.equal(response.headers['x-registry-cost'], '0.001')
  t.equal(response.headers['x-registry-balance'], '0.999')
  t.equal(await balanceOf(app, wallet.id), 0.999)

  const own = await app.inject({ url: '/api/wallet', headers: { 'x-registry-wallet-token': wallet.token } })
  t.equal(own.statusCode, 200)
  const requestId = response.headers['x-request-id']
  const { recent } = own.json()
  t.match(own.json(), {
    id: wallet.id,
    balance: 0.999,
    held: 0,
    recent: [
      { kind: 'capture', amount: 0.001, beeId: 'sentiment-analyzer', requestId, holdId: recent[1]?.id },
      { kind: 'hold', amount: 0.001, beeId: 'sentiment-analyzer', requestId, holdId: null },
      { kind: 'deposit', amount: 1, beeId: null, holdId: null }
    ]
  })
})

test('a body that fails validation is refused before any charge', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const response = await app.inject({ method: 'POST', url: sentiment, payload: { text: 42 }, headers: { 'x-registry-wallet-token': wallet.token } })
  t.equal(response.statusCode, 400)
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('free Bees never read the wallet header', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  for (const token of ['awt_unknown', wallet.token]) {
    const response = await app.inject({
      method: 'POST',
      url: '/api/bees/text-summarizer/execute',
      payload: { text: 'Short text. Nothing to pay.' },
      headers: { 'x-registry-wallet-token': token }
    })
    t.equal(response.statusCode, 200)
    t.equal(response.headers['x-registry-cost'], undefined)
  }
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('when the Bee fails after the hold, the hold is voided: credited back and journaled', async (t) => {
  const upstream = await startFakeOpenMeteo()
  t.teardown(upstream.close)
  upstream.mode = 'refuse'
  const app = await build(t, { env: { OPEN_METEO_URL: upstream.url } })
  const wallet = await createWallet(app, 1)
  const response = await execute(app, 'weather-sensor', { latitude: 48.85, longitude: 2.35 }, wallet.token)
  t.equal(response.statusCode, 502)
  t.equal(await balanceOf(app, wallet.id), 1, 'the balance is whole again')
  const { recent } = (await app.inject({ url: '/api/wallet', headers: { 'x-registry-wallet-token': wallet.token } })).json()
  t.match(recent, [
    { kind: 'void', amount: 0.002, beeId: 'weather-sensor', holdId: recent[1]?.id, requestId: response.headers['x-request-id'] },
    { kind: 'hold', amount: 0.002, beeId: 'weather-sensor' },
    { kind: 'deposit', amount: 1 }
  ])
  const audit = await app.ledger.journal.audit(wallet.id)
  t.equal(audit?.balanceMicros, audit?.journalMicros, 'balance = deposits − holds + voids')
})

test('a wallet funded for exactly N calls serves exactly N of 3N concurrent calls', async (t) => {
  const app = await build(t)
  const n = 20
  const wallet = await createWallet(app, n * 0.001)
  const responses = await Promise.all(Array.from({ length: 3 * n }, () =>
    app.inject({ method: 'POST', url: sentiment, payload: body, headers: { 'x-registry-wallet-token': wallet.token } })))
  const statuses = responses.map((response) => response.statusCode)
  t.equal(statuses.filter((status) => status === 200).length, n, 'exactly N succeed')
  t.equal(statuses.filter((status) => status === 402).length, 2 * n, 'the rest are refused')
  t.ok(responses.filter((r) => r.statusCode === 402).every((r) => r.json().code === 'INSUFFICIENT_FUNDS'))
  t.equal(await balanceOf(app, wallet.id), 0, 'the balance ends at exactly 0')
  const items = await app.ledger.journal.recent(wallet.id, 200)
  t.equal(items.filter((entry) => entry.kind === 'capture').length, n, 'N captures journaled')
  t.equal((await app.ledger.wallets.get(wallet.id))?.held, 0, 'no hold left pending')
})

test('wallet amounts are exact to the micro-unit', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 0.3)
  for (let i = 0; i < 3; i++) {
    await app.inject({ method: 'POST', url: `/api/wallets/${wallet.id}/deposits`, headers: adminHeaders, payload: { amount: 0.1 } })
  }
  t.equal(await balanceOf(app, wallet.id), 0.6, '0.3 + 3 × 0.1 is exactly 0.6')
})
