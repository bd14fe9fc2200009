import { test } from 'tap'
import { backends, countRows } from '../../databases.js'
import { balanceOf, build, createWallet } from '../../helper.js'

const url = '/api/bees/sentiment-analyzer/execute'

test('a retry with the same Idempotency-Key and body replays the answer and charges nothing', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const headers = { 'x-registry-wallet-token': wallet.token, 'idempotency-key': 'order-1' }
  const first = await app.inject({ method: 'POST', url, headers, payload: { text: 'Lovely.' } })
  t.equal(first.statusCode, 200)
  t.equal(first.headers['idempotent-replayed'], undefined)
  const again = await app.inject({ method: 'POST', url, headers, payload: { text: 'Lovely.' } })
  t.equal(again.statusCode, 200)
  t.equal(again.headers['idempotent-replayed'], 'true')
  t.equal(again.body, first.body, 'the same body, byte for byte')
  t.equal(await balanceOf(app, wallet.id), 0.999, 'one charge')
  const { recent } = (await app.inject({ url: '/api/wallet', headers: { 'x-registry-wallet-token': wallet.token } })).json()
  t.match(recent.slice(0, 2), [
    { kind: 'capture', idempotencyKey: 'order-1', holdId: recent[1].id },
    { kind: 'hold', idempotencyKey: 'order-1' }
  ], 'the hold and its capture carry the key')
})

test('the same key with another body is a 422', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const headers = { 'x-registry-wallet-token': wallet.token, 'idempotency-key': 'order-2' }
  await app.inject({ method: 'POST', url, headers, payload: { text: 'Lovely.' } })
  const other = await app.inject({ method: 'POST', url, headers, payload: { text: 'Awful.' } })
  t.equal(other.statusCode, 422)
  t.match(other.json(), { error: 'Unprocessable Entity', code: 'IDEMPOTENCY_KEY_REUSED', message: String })
  t.equal(await balanceOf(app, wallet.id), 0.999)
})

test('keys are scoped to the wallet', async (t) => {
  const app = await build(t)
  const [a, b] = await Promise.all([createWallet(app, 1), createWallet(app, 1)])
  for (const wallet of [a, b]) {
    const response = await app.inject({
      method: 'POST', url, payload: { text: 'Lovely.' }, headers: { 'x-registry-wallet-token': wallet.token, 'idempotency-key': 'shared' }
    })
    t.equal(response.headers['idempotent-replayed'], undefined, 'each wallet executes once')
  }
  t.equal(await balanceOf(app, a.id), 0.999)
  t.equal(await balanceOf(app, b.id), 0.999)
})

test('concurrent requests with one key: one execution, one charge, the rest 409 or a replay', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const headers = { 'x-registry-wallet-token': wallet.token, 'idempotency-key': 'burst' }
  const responses = await Promise.all(Array.from({ length: 10 }, () =>
    app.inject({ method: 'POST', url, headers, payload: { text: 'Lovely.' } })))
  const fresh = responses.filter((r) => r.statusCode === 200 && r.headers['idempotent-replayed'] === undefined)
  t.equal(fresh.length, 1, 'exactly one execution')
  t.ok(responses.every((r) => r.statusCode === 409 || r.statusCode === 200))
  t.ok(responses.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'IDEMPOTENCY_IN_FLIGHT'))
  t.equal(await balanceOf(app, wallet.id), 0.999, 'exactly one charge')
})

test('a failed execution frees the key: the retry runs again, and the failure was refunded', async (t) => {
  const app = await build(t, { env: { OPEN_METEO_URL: 'http://127.0.0.1:9' } })
  const wallet = await createWallet(app, 1)
  const headers = { 'x-registry-wallet-token': wallet.token, 'idempotency-key': 'weather-1' }
  const call = () => app.inject({ method: 'POST', url: '/api/bees/weather-sensor/execute', headers, payload: { latitude: 1, longitude: 2 } })
  t.equal((await call()).statusCode, 502)
  const retry = await call()
  t.equal(retry.statusCode, 502)
  t.equal(retry.headers['idempotent-replayed'], undefined, 'executed again, not replayed')
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('a 402 does not use up the key', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 0)
  const headers = { 'x-registry-wallet-token': wallet.token, 'idempotency-key': 'topup' }
  t.equal((await app.inject({ method: 'POST', url, headers, payload: { text: 'Hi.' } })).statusCode, 402)
  await app.ledger.wallets.deposit(wallet.id, 1000, null)
  t.equal((await app.inject({ method: 'POST', url, headers, payload: { text: 'Hi.' } })).statusCode, 200)
})

test('free Bees honour the header with a wallet token, scoped to the wallet, and charge nothing', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const call = (text: string) => app.inject({
    method: 'POST',
    url: '/api/bees/text-summarizer/execute',
    headers: { 'idempotency-key': 'sum-1', 'x-registry-wallet-token': wallet.token },
    payload: { text }
  })
  const first = await call('One sentence here. Another one there.')
  const replay = await call('One sentence here. Another one there.')
  t.equal(replay.headers['idempotent-replayed'], 'true')
  t.equal(replay.body, first.body)
  t.equal((await call('Something else entirely.')).statusCode, 422)
  t.equal(await balanceOf(app, wallet.id), 1)
})

for (const backend of backends) {
  test(`anonymous callers cannot make the server store answers: a key on a free Bee needs a wallet token (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const app = await build(t, { env: { DATABASE_URL: database.url } })
    const stored = () => countRows(database, 'idempotency_keys')
    const n = 20
    for (const token of [undefined, 'awt_unknown']) {
      const responses = await Promise.all(Array.from({ length: n }, (_, i) => app.inject({
        method: 'POST',
        url: '/api/bees/text-summarizer/execute',
        headers: { 'idempotency-key': `anon-${token ?? 'none'}-${i}`, ...(token === undefined ? {} : { 'x-registry-wallet-token': token }) },
        payload: { text: `A text to store, number ${i}. It is long enough to be worth keeping.` }
      })))
      t.ok(responses.every((r) => r.statusCode === 400 && r.json().code === 'IDEMPOTENCY_WALLET_REQUIRED'), `${token ?? 'no token'}: 400 IDEMPOTENCY_WALLET_REQUIRED`)
    }
    t.equal(await stored(), 0, 'nothing stored')
    const plain = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: 'Without a key. It just runs.' } })
    t.equal(plain.statusCode, 200, 'without a key, anonymous free calls run as before')
    t.equal(await stored(), 0)
  })
}

test('a malformed key is a 400', async (t) => {
  const app = await build(t)
  const response = await app.inject({
    method: 'POST', url: '/api/bees/text-summarizer/execute', headers: { 'idempotency-key': 'has space' }, payload: { text: 'Hi.' }
  })
  t.equal(response.statusCode, 400)
  t.equal(response.json().code, 'INVALID_IDEMPOTENCY_KEY')
})
