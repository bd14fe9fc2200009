import { test } from 'tap'
import { adminHeaders, createWallet, execute } from '../../helper.js'
import { beeBody, publish, publishingSetup } from '../../publishing-helper.js'
import { minted } from '../../tokens-helper.js'

const paidShouter = (endpoint: string) => beeBody('paid-shouter', endpoint, { pricing: { type: 'pay-per-use', costPerCall: 0.01 } })

test('a published Bee\'s sales earn for its publisher, less the platform fee, which the operator earns', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t, { PLATFORM_FEE_BPS: '1000' })
  await publish(app, publisher.headers, paidShouter(fake.url))
  const wallet = await createWallet(app, 1)
  t.equal((await execute(app, 'paid-shouter', { text: 'hi' }, wallet.token)).statusCode, 200)
  t.equal((await execute(app, 'sentiment-analyzer', { text: 'Lovely.' }, wallet.token)).statusCode, 200)
  // The same core on another door (MCP and A2A call it so): the sale earns the same way.
  const viaCore = await app.executor.execute({ beeId: 'paid-shouter', input: { text: 'yo' }, walletToken: wallet.token, idempotencyKey: undefined, requestId: 'core-1', log: app.log })
  t.equal(viaCore.ok, true)
  fake.mode = 'error'
  t.equal((await execute(app, 'paid-shouter', { text: 'hi' }, wallet.token)).statusCode, 502, 'a failing Bee earns nothing')

  const mine = await app.inject({ url: '/api/publishers/me/earnings?limit=1', headers: publisher.headers })
  t.equal(mine.statusCode, 200)
  t.match(mine.json(), {
    account: publisher.id,
    balances: [{ currency: 'USD', balance: 0.018, earned: 0.018, fees: 0.002, paidOut: 0 }],
    entries: [{ kind: 'sale', amount: 0.009, fee: 0.001, beeId: 'paid-shouter', requestId: 'core-1' }]
  })
  const next = await app.inject({ url: `/api/publishers/me/earnings?limit=1&cursor=${mine.json<{ nextCursor: string }>().nextCursor}`, headers: publisher.headers })
  t.match(next.json(), { entries: [{ kind: 'sale', amount: 0.009 }], nextCursor: null })
  t.match((await app.inject({ url: '/api/publishers/me/earnings?cursor=nope!', headers: publisher.headers })).json(), { code: 'INVALID_CURSOR' })

  const operator = await app.inject({ url: '/api/publishers/me/earnings', headers: adminHeaders })
  t.match(operator.json(), { account: 'operator', balances: [{ currency: 'USD', balance: 0.003, earned: 0.003, fees: 0 }] }, 'two fees and the built-in sale')
  t.same((await app.inject({ url: '/api/publishers/operator/earnings', headers: adminHeaders })).json<{ balances: unknown }>().balances, operator.json<{ balances: unknown }>().balances)
  t.match((await app.inject({ url: `/api/publishers/${publisher.id}/earnings`, headers: adminHeaders })).json(), { account: publisher.id, balances: [{ balance: 0.018 }] })
})

test('the operator records payouts, never more than the balance', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t)
  await publish(app, publisher.headers, paidShouter(fake.url))
  const wallet = await createWallet(app, 1)
  for (let i = 0; i < 3; i++) t.equal((await execute(app, 'paid-shouter', { text: 'hi' }, wallet.token)).statusCode, 200)
  const payout = (amount: number, who = publisher.id, headers: Record<string, string> = adminHeaders) =>
    app.inject({ method: 'POST', url: `/api/publishers/${who}/payouts`, headers, payload: { amount, reference: 'SEPA-42' } })

  const over = await payout(0.030001)
  t.equal(over.statusCode, 409)
  t.match(over.json(), { error: 'Conflict', code: 'PAYOUT_EXCEEDS_BALANCE', message: /exceeds the balance of 0\.03 USD/ })
  const paid = await payout(0.025)
  t.equal(paid.statusCode, 201)
  t.match(paid.json(), { payout: { kind: 'payout', amount: 0.025, currency: 'USD', reference: 'SEPA-42' }, balance: { balance: 0.005, earned: 0.03, paidOut: 0.025 } })
  t.match((await app.inject({ url: '/api/publishers/me/earnings', headers: publisher.headers })).json(), {
    balances: [{ balance: 0.005, paidOut: 0.025 }], entries: [{ kind: 'payout', amount: 0.025, reference: 'SEPA-42' }]
  }, 'the publisher sees it on its statement')
  t.equal((await payout(0.006)).statusCode, 409)

  t.match((await payout(1, 'pub_nobody')).json(), { code: 'PUBLISHER_NOT_FOUND' })
  t.equal((await payout(1, 'pub_nobody')).statusCode, 404)
  t.match((await payout(0.0000001)).json(), { code: 'VALIDATION_FAILED' })
  t.match((await payout(0.0000015)).json(), { code: 'INVALID_AMOUNT' })
  t.match((await payout(1, 'nonsense')).json(), { code: 'VALIDATION_FAILED' })
  t.equal((await payout(0.001, publisher.id, publisher.headers)).statusCode, 401, 'a publisher cannot pay itself out')
  t.equal((await app.inject({ url: `/api/publishers/${publisher.id}/earnings`, headers: publisher.headers })).statusCode, 200, 'it reads its own by id too')
  t.equal((await app.inject({ url: '/api/publishers/pub_other/earnings', headers: publisher.headers })).statusCode, 404, 'but not another\'s')
  t.equal((await app.inject({ url: '/api/publishers/operator/earnings', headers: publisher.headers })).statusCode, 404, 'nor the operator\'s')
  t.equal((await app.inject({ url: '/api/publishers/me/earnings' })).statusCode, 401)
  t.equal((await app.inject({ url: '/api/publishers/pub_nobody/earnings', headers: adminHeaders })).statusCode, 404)
})

test('a sale paid with a verification token earns for the publisher like one paid with the wallet key', async (t) => {
  const { app, fake, publisher } = await publishingSetup(t, { PLATFORM_FEE_BPS: '1000' })
  await publish(app, publisher.headers, paidShouter(fake.url))
  const wallet = await createWallet(app, 1)
  const token = await minted(app, wallet.token, { cap: 0.5 })
  t.equal((await execute(app, 'paid-shouter', { text: 'hi' }, token.token)).statusCode, 200)
  t.match((await app.inject({ url: '/api/publishers/me/earnings', headers: publisher.headers })).json(), {
    balances: [{ balance: 0.009, fees: 0.001 }], entries: [{ kind: 'sale', amount: 0.009, beeId: 'paid-shouter' }]
  })
})
