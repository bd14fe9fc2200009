import { test } from 'tap'
import { ADMIN_TOKEN, adminHeaders, build, createWallet } from '../../helper.js'

test('the admin API needs the admin bearer token', async (t) => {
  const app = await build(t)
  const attempts = [{}, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: ADMIN_TOKEN }]
  for (const headers of attempts) {
    const response = await app.inject({ method: 'POST', url: '/api/wallets', headers, payload: { balance: 5 } })
    t.equal(response.statusCode, 401)
    t.match(response.json(), { error: 'Unauthorized', code: 'UNAUTHORIZED', message: String })
  }
  t.equal((await app.inject({ url: '/api/wallets/wal_x' })).statusCode, 401)
})

test('without ADMIN_TOKEN the admin API is disabled and says so', async (t) => {
  const lines: string[] = []
  const app = await build(t, { env: { ADMIN_TOKEN: '' }, logLines: lines })
  const response = await app.inject({ method: 'POST', url: '/api/wallets', headers: adminHeaders, payload: {} })
  t.equal(response.statusCode, 403)
  t.equal(response.json().code, 'ADMIN_DISABLED')
  t.equal(lines.filter((line) => line.includes('ADMIN_TOKEN is not set')).length, 1, 'one clear log line')
})

test('creating a wallet shows its token once; reading it never does', async (t) => {
  const app = await build(t)
  const created = await app.inject({ method: 'POST', url: '/api/wallets', headers: adminHeaders, payload: { balance: 5, label: 'agent-7' } })
  t.equal(created.statusCode, 201)
  const wallet = created.json()
  t.match(wallet, { id: /^wal_/, token: /^awt_[A-Za-z0-9_-]{43}$/, balance: 5, currency: 'USD', label: 'agent-7', createdAt: String })
  const read = await app.inject({ url: `/api/wallets/${wallet.id}`, headers: adminHeaders })
  t.equal(read.statusCode, 200)
  t.same(read.json(), { id: wallet.id, balance: 5, held: 0, currency: 'USD', label: 'agent-7', frozen: false, createdAt: wallet.createdAt })
  t.notMatch(read.body, wallet.token)
})

test('two wallets never share a token', async (t) => {
  const app = await build(t)
  const [a, b] = await Promise.all([createWallet(app, 0), createWallet(app, 0)])
  t.not(a.token, b.token)
})

test('wallet defaults: balance 0, the configured currency, no label', async (t) => {
  const app = await build(t, { env: { PRICE_CURRENCY: 'EUR' } })
  const created = await app.inject({ method: 'POST', url: '/api/wallets', headers: adminHeaders, payload: {} })
  t.match(created.json(), { balance: 0, currency: 'EUR', label: null })
})

test('deposits add to the balance and are journaled', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const response = await app.inject({ method: 'POST', url: `/api/wallets/${wallet.id}/deposits`, headers: adminHeaders, payload: { amount: 2.5 } })
  t.equal(response.statusCode, 200)
  t.equal(response.json().balance, 3.5)
  const own = (await app.inject({ url: '/api/wallet', headers: { 'x-registry-wallet-token': wallet.token } })).json()
  t.match(own.recent, [
    { kind: 'deposit', amount: 2.5, requestId: response.headers['x-request-id'] },
    { kind: 'deposit', amount: 1, requestId: String }
  ], 'each deposit, the opening one too, names the request that made it')
})

test('bad amounts and unknown wallets get clear errors', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const deposit = (payload: object, id = wallet.id) =>
    app.inject({ method: 'POST', url: `/api/wallets/${id}/deposits`, headers: adminHeaders, payload })
  t.match((await deposit({ amount: 0.0000001 })).json(), { code: 'VALIDATION_FAILED' }, 'below one micro-unit')
  t.match((await deposit({ amount: 1.0000001 })).json(), { code: 'INVALID_AMOUNT' }, 'more than six decimals')
  t.match((await deposit({ amount: -1 })).json(), { code: 'VALIDATION_FAILED' })
  t.match((await deposit({ amount: '5' })).json(), { code: 'VALIDATION_FAILED' }, 'no string coercion')
  const missing = await deposit({ amount: 1 }, 'wal_missing')
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().code, 'WALLET_NOT_FOUND')
  t.equal((await app.inject({ url: '/api/wallets/wal_missing', headers: adminHeaders })).statusCode, 404)
  const badCurrency = await app.inject({ method: 'POST', url: '/api/wallets', headers: adminHeaders, payload: { currency: 'dollars' } })
  t.equal(badCurrency.statusCode, 400)
})

test('a holder reads its own wallet with its token, and nothing without one', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 2)
  const own = await app.inject({ url: '/api/wallet', headers: { 'x-registry-wallet-token': wallet.token } })
  t.equal(own.statusCode, 200)
  t.match(own.json(), { id: wallet.id, balance: 2, currency: 'USD', recent: [{ kind: 'deposit', amount: 2 }] })
  t.notOk('token' in own.json())
  const none = await app.inject({ url: '/api/wallet' })
  t.equal(none.statusCode, 401)
  t.equal(none.json().code, 'WALLET_TOKEN_MISSING')
  const wrong = await app.inject({ url: '/api/wallet', headers: { 'x-registry-wallet-token': 'awt_wrong' } })
  t.equal(wrong.statusCode, 401)
  t.equal(wrong.json().code, 'WALLET_NOT_FOUND')
})

test('admin reads a wallet journal page by page, and lists wallets', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  for (let i = 0; i < 4; i++) {
    await app.inject({ method: 'POST', url: `/api/wallets/${wallet.id}/deposits`, headers: adminHeaders, payload: { amount: 1 } })
  }
  const first = await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=3`, headers: adminHeaders })
  t.equal(first.statusCode, 200)
  const page = first.json()
  t.equal(page.entries.length, 3)
  t.type(page.nextCursor, 'string')
  const second = (await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=3&cursor=${page.nextCursor}`, headers: adminHeaders })).json()
  t.equal(second.entries.length, 2)
  t.equal(second.nextCursor, null)
  t.ok(second.entries[0].id < page.entries[2].id, 'newest first across pages')
  t.equal((await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=0`, headers: adminHeaders })).statusCode, 400)
  t.equal((await app.inject({ url: `/api/wallets/${wallet.id}/journal?cursor=zzz`, headers: adminHeaders })).json().code, 'INVALID_CURSOR')
  t.equal((await app.inject({ url: '/api/wallets/wal_none/journal', headers: adminHeaders })).statusCode, 404)

  await createWallet(app, 2)
  const list = (await app.inject({ url: '/api/wallets?limit=1', headers: adminHeaders })).json()
  t.equal(list.wallets.length, 1)
  t.notOk('token' in list.wallets[0])
  const rest = (await app.inject({ url: `/api/wallets?limit=5&cursor=${list.nextCursor}`, headers: adminHeaders })).json()
  t.equal(rest.wallets.length, 1)
  t.equal(rest.nextCursor, null)
})

test('a frozen wallet gets 402 WALLET_FROZEN until it is unfrozen', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const call = () => app.inject({
    method: 'POST', url: '/api/bees/sentiment-analyzer/execute', payload: { text: 'Hi.' }, headers: { 'x-registry-wallet-token': wallet.token }
  })
  const frozen = await app.inject({ method: 'POST', url: `/api/wallets/${wallet.id}/freeze`, headers: adminHeaders })
  t.equal(frozen.json().frozen, true)
  const refused = await call()
  t.equal(refused.statusCode, 402)
  t.equal(refused.json().code, 'WALLET_FROZEN')
  await app.inject({ method: 'POST', url: `/api/wallets/${wallet.id}/unfreeze`, headers: adminHeaders })
  t.equal((await call()).statusCode, 200)
  t.equal((await app.inject({ method: 'POST', url: '/api/wallets/wal_none/freeze', headers: adminHeaders })).statusCode, 404)
})
