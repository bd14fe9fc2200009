import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { backends, runSql } from '../databases.js'
import { balanceOf, createWallet } from '../helper.js'
import { beeBody, publish, publishingSetup } from '../publishing-helper.js'

const ENDED = '2000-01-01T00:00:00.000Z'

for (const backend of backends) {
  test(`the sweeper renews a subscription whose period ended, lapses one its wallet cannot pay, and ends a canceled one (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const { app, fake, publisher } = await publishingSetup(t, { DATABASE_URL: database.url, HOLD_SWEEP_INTERVAL_MS: '20' })
    for (const id of ['plan-a', 'plan-b']) {
      await publish(app, publisher.headers, beeBody(id, fake.url, {
        pricing: { type: 'subscription', costPerCall: 0, plan: { periodPrice: 1, periodDays: 30, includedCalls: 3, overagePrice: null } }
      }))
    }
    const rich = await createWallet(app, 3.5)
    const poor = await createWallet(app, 1)
    const subscribe = async (beeId: string, token: string) => {
      const response = await app.inject({ method: 'POST', url: `/api/bees/${beeId}/subscription`, headers: { 'x-registry-wallet-token': token } })
      t.equal(response.statusCode, 201)
    }
    await subscribe('plan-a', rich.token)
    await subscribe('plan-b', rich.token)
    await subscribe('plan-a', poor.token)
    await app.inject({ method: 'DELETE', url: '/api/bees/plan-b/subscription', headers: { 'x-registry-wallet-token': rich.token } })
    await runSql(database, [`UPDATE subscriptions SET period_end = '${ENDED}', used = 3`])

    const stateOf = async (beeId: string, token: string) => (await app.inject({ url: `/api/bees/${beeId}/subscription`, headers: { 'x-registry-wallet-token': token } })).json()
    for (let waited = 0; waited < 5000 && (await stateOf('plan-a', rich.token)).periodEnd === ENDED; waited += 20) await sleep(20)
    for (let waited = 0; waited < 2000 && (await stateOf('plan-b', rich.token)).state !== undefined; waited += 20) await sleep(20)
    const renewed = await stateOf('plan-a', rich.token)
    t.match(renewed, { state: 'active', used: 0 }, 'renewed, its quota reset')
    t.ok(renewed.periodEnd > new Date().toISOString(), 'a new period, from now')
    t.equal(await balanceOf(app, rich.id), 0.5, 'two first periods and one renewal paid, each once')
    t.match(await stateOf('plan-a', poor.token), { code: 'SUBSCRIPTION_NOT_FOUND' }, 'lapsed: no longer live')
    t.equal(await balanceOf(app, poor.id), 0, 'nothing taken from a wallet that could not pay')
    t.match(await stateOf('plan-b', rich.token), { code: 'SUBSCRIPTION_NOT_FOUND' }, 'a canceled subscription ends instead of renewing')
  })
}
