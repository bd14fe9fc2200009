import { test } from 'tap'
import { backends } from '../../databases.js'
import { adminHeaders, balanceOf, build, createWallet, execute } from '../../helper.js'
import { beeBody, publish, publishingSetup } from '../../publishing-helper.js'
import { minted } from '../../tokens-helper.js'

/** 1 USD a 30-day period with 3 calls included; overage as given. */
const subscriptionBee = (endpoint: string, overagePrice: number | null) => beeBody('sub-shouter', endpoint, {
  pricing: { type: 'subscription', costPerCall: overagePrice ?? 0, plan: { periodPrice: 1, periodDays: 30, includedCalls: 3, overagePrice } }
})

for (const backend of backends) {
  test(`a subscription Bee: 402 without a subscription, included calls free and exact, given back on failure, then exhausted (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const { app, fake, publisher } = await publishingSetup(t, { PLATFORM_FEE_BPS: '1000', DATABASE_URL: database.url })
    await publish(app, publisher.headers, subscriptionBee(fake.url, null))
    const wallet = await createWallet(app, 1.5)
    const headers = { 'x-registry-wallet-token': wallet.token }
    const url = '/api/bees/sub-shouter/subscription'

    const unsubscribed = await execute(app, 'sub-shouter', { text: 'hi' }, wallet.token)
    t.equal(unsubscribed.statusCode, 402)
    t.match(unsubscribed.json(), { code: 'SUBSCRIPTION_REQUIRED', transactionDetails: { beeId: 'sub-shouter', howToPay: /POST \/api\/bees\/sub-shouter\/subscription/, plan: { periodPrice: 1, periodDays: 30, includedCalls: 3, overagePrice: null } } })
    t.equal((await app.inject({ url, headers })).statusCode, 404, 'no subscription yet')
    t.equal((await app.inject({ method: 'POST', url })).statusCode, 401, 'a wallet token is needed')
    t.match((await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/subscription', headers })).json(), { code: 'BEE_NOT_SUBSCRIPTION' })

    const subscribed = await app.inject({ method: 'POST', url, headers })
    t.equal(subscribed.statusCode, 201)
    t.match(subscribed.json(), { beeId: 'sub-shouter', state: 'active', used: 0, plan: { includedCalls: 3 }, currency: 'USD' })
    t.equal(await balanceOf(app, wallet.id), 0.5, 'the period price, paid at once')
    t.match((await app.inject({ method: 'POST', url, headers })).json(), { code: 'ALREADY_SUBSCRIBED' })
    t.match((await app.inject({ url: `/api/publishers/${publisher.id}/earnings`, headers: adminHeaders })).json(), {
      balances: [{ balance: 0.9, fees: 0.1 }], entries: [{ kind: 'sale', amount: 0.9, beeId: 'sub-shouter' }]
    }, 'the period price earns for the publisher, less the fee')

    fake.mode = 'error'
    t.equal((await execute(app, 'sub-shouter', { text: 'hi' }, wallet.token)).statusCode, 502)
    t.match((await app.inject({ url, headers })).json(), { used: 0 }, 'a failed call gives its included call back')
    fake.mode = 'ok'
    // More calls at once than are included: exactly the included ones run.
    const calls = await Promise.all(Array.from({ length: 8 }, () => execute(app, 'sub-shouter', { text: 'hi' }, wallet.token)))
    t.equal(calls.filter((call) => call.statusCode === 200).length, 3)
    t.ok(calls.every((call) => call.statusCode === 200 ? call.headers['x-registry-cost'] === undefined : call.json().code === 'SUBSCRIPTION_QUOTA_EXHAUSTED'))
    t.equal(await balanceOf(app, wallet.id), 0.5, 'included calls cost nothing more')
    const exhausted = await execute(app, 'sub-shouter', { text: 'hi' }, wallet.token)
    t.match(exhausted.json(), { code: 'SUBSCRIPTION_QUOTA_EXHAUSTED', transactionDetails: { resetsAt: subscribed.json<{ periodEnd: string }>().periodEnd } })
    // The same core on the other doors.
    const viaCore = await app.executor.execute({ beeId: 'sub-shouter', input: { text: 'yo' }, walletToken: wallet.token, idempotencyKey: undefined, requestId: 'core-1', log: app.log })
    t.match(viaCore, { ok: false, error: { code: 'SUBSCRIPTION_QUOTA_EXHAUSTED' } })

    const canceled = await app.inject({ method: 'DELETE', url, headers })
    t.match(canceled.json(), { state: 'canceled', used: 3 })
    t.equal((await app.inject({ method: 'DELETE', url, headers })).statusCode, 404, 'canceled once')
    t.match((await app.inject({ url, headers })).json(), { state: 'canceled' }, 'it runs to the period\'s end')
  })

  test(`past the quota, the overage price is charged through a hold (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const { app, fake, publisher } = await publishingSetup(t, { DATABASE_URL: database.url })
    await publish(app, publisher.headers, subscriptionBee(fake.url, 0.01))
    const wallet = await createWallet(app, 2)
    t.equal((await app.inject({ method: 'POST', url: '/api/bees/sub-shouter/subscription', headers: { 'x-registry-wallet-token': wallet.token } })).statusCode, 201)
    for (let i = 0; i < 3; i++) t.equal((await execute(app, 'sub-shouter', { text: 'hi' }, wallet.token)).headers['x-registry-cost'], undefined)
    const overage = await execute(app, 'sub-shouter', { text: 'hi' }, wallet.token)
    t.equal(overage.statusCode, 200)
    t.equal(overage.headers['x-registry-cost'], '0.01')
    t.equal(await balanceOf(app, wallet.id), 0.99)
    t.match((await app.inject({ url: '/api/bees/sub-shouter', headers: adminHeaders })).json(), {
      pricing: { type: 'subscription', costPerCall: 0.01, plan: { periodPrice: 1, includedCalls: 3, overagePrice: 0.01 } }
    }, 'the plan is on the Bee record')
    t.match((await app.inject({
      method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('bad-plan', fake.url, { pricing: { type: 'subscription', costPerCall: 0.5, plan: { periodPrice: 1, periodDays: 30, includedCalls: 3, overagePrice: 0.01 } } })
    })).json(), { code: 'INVALID_PRICE' }, 'costPerCall must be the overage price')
  })

  test(`a verification token spends its wallet’s subscription, within its scope, until revoked; past the quota its caps pay the overage (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const { app, fake, publisher } = await publishingSetup(t, { DATABASE_URL: database.url })
    await publish(app, publisher.headers, subscriptionBee(fake.url, 0.01))
    const wallet = await createWallet(app, 1.5)
    const owner = { 'x-registry-wallet-token': wallet.token }
    const url = '/api/bees/sub-shouter/subscription'
    t.equal((await app.inject({ method: 'POST', url, headers: owner })).statusCode, 201)
    const agent = await minted(app, wallet.token, { cap: 0.015, bees: ['sub-shouter'] })
    const subAgent = await minted(app, agent.token, { cap: 0.01 })
    const elsewhere = await minted(app, wallet.token, { cap: 0.5, bees: ['weather-sensor'] })

    for (const token of [agent, subAgent, agent]) {
      const called = await execute(app, 'sub-shouter', { text: 'hi' }, token.token)
      t.equal(called.statusCode, 200, 'an included call, paid by the subscription')
      t.equal(called.headers['x-registry-cost'], undefined)
    }
    const scoped = await execute(app, 'sub-shouter', { text: 'hi' }, elsewhere.token)
    t.equal(scoped.statusCode, 403)
    t.match(scoped.json(), { code: 'TOKEN_SCOPE_DENIED' })
    const overage = await execute(app, 'sub-shouter', { text: 'hi' }, subAgent.token)
    t.equal(overage.headers['x-registry-cost'], '0.01', 'past the quota, the overage is held against the token\'s caps')
    t.match((await execute(app, 'sub-shouter', { text: 'hi' }, subAgent.token)).json(), { code: 'TOKEN_CAP_EXCEEDED' })
    t.equal(await balanceOf(app, wallet.id), 0.49)

    const calls = await app.inject({ url: `${url}/calls?limit=2`, headers: owner })
    t.equal(calls.statusCode, 200)
    const page = calls.json<{ calls: Array<{ tokenId: string | null }>, nextCursor: string | null }>()
    t.same(page.calls.map((call) => call.tokenId), [agent.id, subAgent.id], 'the included calls, newest first, each with the token that spent it')
    const rest = await app.inject({ url: `${url}/calls?limit=2&cursor=${page.nextCursor ?? ''}`, headers: owner })
    t.match(rest.json(), { calls: [{ tokenId: agent.id, returnedAt: null }], nextCursor: null }, 'the overage call is in the wallet\'s journal, not here')
    t.match((await app.inject({ url: `${url}/calls?cursor=nonsense`, headers: owner })).json(), { code: 'INVALID_CURSOR' })
    t.equal((await app.inject({ url: `${url}/calls` })).statusCode, 401)
    // Not a Bee id (a NUL byte, which PostgreSQL cannot even compare): not found, never a 500.
    for (const path of ['/api/bees/%00/subscription/calls', '/api/bees/%00/subscription']) {
      t.match((await app.inject({ url: path, headers: owner })).json(), { code: path.endsWith('calls') ? 'BEE_NOT_FOUND' : 'SUBSCRIPTION_NOT_FOUND' }, path)
    }
    t.equal((await app.inject({ method: 'DELETE', url: '/api/bees/%00/subscription', headers: owner })).statusCode, 404)

    t.equal((await app.inject({ method: 'DELETE', url: `/api/wallet/tokens/${agent.id}`, headers: owner })).statusCode, 200)
    const revoked = await execute(app, 'sub-shouter', { text: 'hi' }, subAgent.token)
    t.equal(revoked.statusCode, 402)
    t.match(revoked.json(), { code: 'TOKEN_REVOKED' }, 'revoking a token stops its children at once, on included calls too')
  })
}

test('a built-in Bee priced by subscription through SUBSCRIPTION_BUILTIN_BEES: subscribed, included, then exhausted; an unknown id stops start-up', async (t) => {
  const plan = { periodPrice: 2, periodDays: 7, includedCalls: 2, overagePrice: null }
  const app = await build(t, { env: { SUBSCRIPTION_BUILTIN_BEES: JSON.stringify({ 'sentiment-analyzer': plan }) } })
  t.match((await app.inject({ url: '/api/bees/sentiment-analyzer' })).json(), { pricing: { type: 'subscription', costPerCall: 0, currency: 'USD', plan } })
  const wallet = await createWallet(app, 3)
  t.match((await execute(app, 'sentiment-analyzer', { text: 'Great!' }, wallet.token)).json(), { code: 'SUBSCRIPTION_REQUIRED' })
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/sentiment-analyzer/subscription', headers: { 'x-registry-wallet-token': wallet.token } })).statusCode, 201)
  for (let i = 0; i < 2; i++) t.equal((await execute(app, 'sentiment-analyzer', { text: 'Great!' }, wallet.token)).statusCode, 200)
  t.match((await execute(app, 'sentiment-analyzer', { text: 'Great!' }, wallet.token)).json(), { code: 'SUBSCRIPTION_QUOTA_EXHAUSTED' })
  t.equal(await balanceOf(app, wallet.id), 1, 'the period price only')
  t.match((await app.inject({ url: '/api/publishers/operator/earnings', headers: adminHeaders })).json(), { balances: [{ balance: 2 }] }, 'a built-in Bee earns for the operator')
  await t.rejects(build(t, { env: { SUBSCRIPTION_BUILTIN_BEES: JSON.stringify({ 'no-such-bee': plan }) } }), /SUBSCRIPTION_BUILTIN_BEES names no-such-bee, which is not a built-in Bee/)
})
