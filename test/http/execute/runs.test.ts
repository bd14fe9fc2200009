import type { FastifyInstance } from 'fastify'
import { Webhook } from 'standardwebhooks'
import { test } from 'tap'
import { backends, runSql } from '../../databases.js'
import { balanceOf, createWallet } from '../../helper.js'
import { beeBody, publish, publishingSetup } from '../../publishing-helper.js'
import { startWebhookReceiver } from '../../webhook-receiver.js'
import { within } from '../../within.js'

interface RunBody { id: string, status: string, callbackSecret?: string }

for (const backend of backends) {
  test(`completion webhooks and the wallet's limit of runs on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const { app, fake, publisher } = await publishingSetup(t, {
      DATABASE_URL: database.url, RUN_POLL_MS: '50', RUN_LEASE_SECONDS: '3', RUN_CALLBACK_RETRY_SECONDS: '1', RUN_MAX_PER_WALLET: '2'
    })
    const receiver = await startWebhookReceiver()
    t.teardown(receiver.close)
    const paid = { type: 'pay-per-use', costPerCall: 0.25 }
    await publish(app, publisher.headers, beeBody('slow-shouter', fake.url, { pricing: paid, config: { executionMode: 'async', maxRunSeconds: 60 } }))
    let releases: Array<() => void> = []
    t.teardown(() => { for (const release of releases) release() })
    const start = async (app: FastifyInstance, token: string, headers: Record<string, string> = {}) => await app.inject({
      method: 'POST', url: '/api/bees/slow-shouter/execute', payload: { text: 'hi' }, headers: { 'x-registry-wallet-token': token, ...headers }
    })

    await t.test('the run\'s webhook arrives signed by Standard Webhooks, retried after a 500, with the run and its Honey', async (t) => {
      fake.beforeAnswer = async () => {}
      receiver.statuses = [500]
      const wallet = await createWallet(app, 1)
      // No Prefer: a caller to be called back is answered at once, with the secret.
      const started = await start(app, wallet.token, { 'callback-url': receiver.url })
      t.equal(started.statusCode, 202, started.body)
      const run = started.json<RunBody>()
      t.match(run.callbackSecret, /^whsec_/, 'the secret, shown once')
      t.equal(started.headers['preference-applied'], undefined)
      t.not(await within(10_000, async () => receiver.deliveries.length >= 2), null, 'delivered again after the 500')
      const [first, second] = receiver.deliveries
      const verifier = new Webhook(run.callbackSecret as string)
      for (const delivery of [first, second]) {
        const payload = verifier.verify(delivery?.body ?? '', delivery?.headers as Record<string, string>)
        t.match(payload, { type: 'run.succeeded', data: { id: run.id, status: 'succeeded', honey: { beeId: 'slow-shouter', result: { shout: 'HI', length: 2 } } } })
      }
      t.equal(first?.headers['webhook-id'], second?.headers['webhook-id'], 'one message, its id the same at each attempt')
      t.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(second?.body ?? '', second?.headers as Record<string, string>),
        'another secret does not verify it')
      const read = await app.inject({ url: `/api/runs/${run.id}`, headers: { 'x-registry-wallet-token': wallet.token } })
      t.equal(read.json<RunBody>().callbackSecret, undefined, 'never shown again')
      const callbackRow = async () => (await runSql(database, [`SELECT state, attempts, last_status, secret FROM run_callbacks WHERE run_id = '${run.id}'`]))[0] as Record<string, unknown>
      // The receiver has answered; the worker records it a moment later.
      await within(5000, async () => (await callbackRow()).state === 'delivered')
      const row = await callbackRow()
      t.match(row, { state: 'delivered', last_status: 204 })
      t.equal(Number(row?.attempts), 2)
      t.match(row?.secret, /^enc1:/, 'the secret is sealed at rest')
      t.equal(receiver.deliveries.length, 2, 'not delivered again once delivered')
    })

    await t.test('the same Idempotency-Key returns the run without its secret, and asks for no second callback; a sync Bee ignores Callback-Url', async (t) => {
      fake.beforeAnswer = async () => {}
      const wallet = await createWallet(app, 1)
      const headers = { 'callback-url': receiver.url, 'idempotency-key': 'hook-1' }
      const first = (await start(app, wallet.token, headers)).json<RunBody>()
      const again = await start(app, wallet.token, headers)
      t.equal(again.statusCode, 202)
      t.match(again.json(), { id: first.id })
      t.equal(again.json<RunBody>().callbackSecret, undefined)
      const rows = await runSql(database, [`SELECT id FROM run_callbacks WHERE run_id = '${first.id}'`])
      t.equal(rows.length, 1)
      t.not(await within(5000, async () => receiver.deliveries.some((delivery) => delivery.body.includes(first.id))), null, 'called back once it ended')
      await publish(app, publisher.headers, beeBody('quick', fake.url))
      const sync = await app.inject({ method: 'POST', url: '/api/bees/quick/execute', payload: { text: 'hi' }, headers: { 'callback-url': receiver.url } })
      t.equal(sync.statusCode, 200, 'answered at once')
    })

    await t.test('a Callback-Url the egress guard refuses is 400 before the hold', async (t) => {
      const wallet = await createWallet(app, 1)
      for (const url of ['http://10.0.0.1/hook', 'ftp://127.0.0.1/hook', 'not a url', 'https://user:pw@example.com/hook']) {
        const refused = await start(app, wallet.token, { 'callback-url': url })
        t.equal(refused.statusCode, 400, url)
        t.equal(refused.json<{ code: string }>().code, 'CALLBACK_URL_INVALID', url)
      }
      t.equal(await balanceOf(app, wallet.id), 1, 'nothing held')
    })

    await t.test('a wallet token at RUN_MAX_PER_WALLET is refused 429 before the hold; once one of its runs ends, the next is let in', async (t) => {
      releases = []
      fake.beforeAnswer = async () => await new Promise<void>((resolve) => { releases.push(resolve) })
      receiver.deliveries.length = 0
      const wallet = await createWallet(app, 5)
      const headers = { 'x-registry-wallet-token': wallet.token }
      const first = (await start(app, wallet.token, { prefer: 'respond-async', 'callback-url': receiver.url })).json<RunBody>()
      t.equal((await start(app, wallet.token, { prefer: 'respond-async' })).statusCode, 202)
      const refused = await start(app, wallet.token, { prefer: 'respond-async' })
      t.equal(refused.statusCode, 429)
      t.match(refused.json(), { code: 'RUN_LIMIT_REACHED', retryAfter: 5 })
      t.equal(refused.headers['retry-after'], '5')
      t.equal(await balanceOf(app, wallet.id), 4.5, 'two holds, none for the refused run')
      const other = await createWallet(app, 1)
      t.equal((await start(app, other.token, { prefer: 'respond-async' })).statusCode, 202, 'counted per wallet token')
      t.equal((await app.inject({ method: 'POST', url: `/api/runs/${first.id}/cancel`, headers })).json<RunBody>().status, 'cancelled')
      t.equal((await start(app, wallet.token, { prefer: 'respond-async' })).statusCode, 202, 'let in once a run ended')
      t.not(await within(5000, async () => receiver.deliveries.length === 1), null)
      const payload = new Webhook(first.callbackSecret as string).verify(receiver.deliveries[0]?.body ?? '', receiver.deliveries[0]?.headers as Record<string, string>)
      t.match(payload, { type: 'run.cancelled', data: { id: first.id, status: 'cancelled', honey: null } }, 'a cancelled run calls back too')
      for (const release of releases) release()
    })
  })
}
