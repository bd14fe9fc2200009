import { test } from 'tap'
import { Webhook } from 'standardwebhooks'
import { openStore } from '../../../src/core/ledger/open-store.js'
import { later, now } from '../../../src/core/ledger/timestamps.js'
import { EgressPolicy } from '../../../src/core/publishing/egress.js'
import { CallbackSender, NOTIFICATION_TOKEN_HEADER } from '../../../src/core/runs/callback-sender.js'
import { CallbackWorker } from '../../../src/core/runs/callback-worker.js'
import { newCallbackId, newCallbackSecret } from '../../../src/core/runs/run-ids.js'
import { backends, runSql } from '../../databases.js'
import { SECRETS_KEY } from '../../helper.js'
import { startWebhookReceiver } from '../../webhook-receiver.js'
import { SILENT } from '../preparations/preparation-fixture.js'
import type { StoredRun } from '../../../src/core/ledger/runs/run-repository.js'
import { newRun } from './run-fixture.js'

for (const backend of backends) {
  test(`run callbacks' delivery on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const ledger = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => ledger.close())
    const receiver = await startWebhookReceiver()
    t.teardown(receiver.close)
    const allowed = new CallbackSender(new EgressPolicy(['127.0.0.1']))
    t.teardown(() => allowed.close())
    const pushBody = (run: StoredRun) => JSON.stringify({ task: { id: run.id } })
    const options = { ledger, maxAttempts: 2, retrySeconds: 1, sweepMs: 0, retentionHours: 1, log: SILENT, pushBody }
    const worker = new CallbackWorker({ ...options, sender: allowed })
    /** An ended run with a callback to `url`; `token` sent back with it. */
    const endedRun = async (url = receiver.url, token: string | null = null) => {
      const { run } = await ledger.runs.insert(newRun())
      const callback = { id: newCallbackId(), runId: run.id, url, secret: newCallbackSecret(), token, createdAt: now() }
      await ledger.runCallbacks.insert(callback)
      await ledger.runs.settle(run.id, { from: ['queued'], status: 'cancelled', at: now() })
      return { run, callback }
    }
    const rowOf = async (id: string) => (await runSql(database, [`SELECT state, attempts, last_status, last_error FROM run_callbacks WHERE id = '${id}'`]))[0]

    await t.test('a callback is not due before its run ended; then it is delivered, with its token', async (t) => {
      const { run } = await ledger.runs.insert(newRun())
      await ledger.runCallbacks.insert({ id: newCallbackId(), runId: run.id, url: receiver.url, secret: newCallbackSecret(), token: null, createdAt: now() })
      t.equal(await worker.runOnce(), 'idle', 'its run is still queued')
      t.notOk(await ledger.runCallbacks.hasDue(run.id))
      const { callback } = await endedRun(receiver.url, 'a2a-token')
      t.ok(await ledger.runCallbacks.hasDue(callback.runId))
      t.equal(await worker.runOnce(callback.runId), 'delivered')
      const delivery = receiver.deliveries.at(-1)
      t.equal(delivery?.headers[NOTIFICATION_TOKEN_HEADER], 'a2a-token')
      t.match(new Webhook(callback.secret).verify(delivery?.body ?? '', delivery?.headers as Record<string, string>), { type: 'run.cancelled' })
      t.notOk(await ledger.runCallbacks.hasDue(callback.runId), 'delivered: no longer due')
    })

    await t.test('a run\'s A2A push configs: replaced by id, deleted, sealed at rest; one job delivers them all, each with its body and Authorization', async (t) => {
      const { run } = await ledger.runs.insert(newRun())
      const config = (configId: string, token: string | null) => ({
        id: newCallbackId(),
        runId: run.id,
        url: receiver.url,
        secret: newCallbackSecret(),
        token,
        createdAt: now(),
        format: 'a2a' as const,
        configId,
        taskId: `${run.id}.rk_key`,
        authentication: { scheme: 'Bearer', credentials: `cred-${configId}` }
      })
      await ledger.runCallbacks.replaceConfig(config('a', 'first'))
      await ledger.runCallbacks.replaceConfig(config('a', 'second'))
      await ledger.runCallbacks.replaceConfig(config('b', null))
      await ledger.runCallbacks.replaceConfig(config('c', null))
      await ledger.runCallbacks.deleteConfig(run.id, 'c')
      await ledger.runCallbacks.deleteConfig(run.id, 'c')
      const configs = await ledger.runCallbacks.configsOf(run.id)
      t.same(configs.map(({ configId, token, taskId }) => ({ configId, token, taskId })),
        [{ configId: 'a', token: 'second', taskId: `${run.id}.rk_key` }, { configId: 'b', token: null, taskId: `${run.id}.rk_key` }])
      const stored = await runSql(database, [`SELECT task_id, auth_credentials FROM run_callbacks WHERE run_id = '${run.id}'`])
      t.notOk(JSON.stringify(stored).includes('rk_key') || JSON.stringify(stored).includes('cred-'), 'the task id and credentials are sealed')

      await ledger.runs.settle(run.id, { from: ['queued'], status: 'cancelled', at: now() })
      const before = receiver.deliveries.length
      t.equal(await worker.runOnce(run.id), 'delivered')
      const deliveries = receiver.deliveries.slice(before)
      t.same(deliveries.map((delivery) => delivery.headers.authorization).sort(), ['Bearer cred-a', 'Bearer cred-b'], 'both configs, by the one job')
      for (const delivery of deliveries) {
        t.same(JSON.parse(delivery.body), { task: { id: run.id } }, 'the push body, not the webhook\'s')
        t.match(delivery.headers['content-type'], /^application\/a2a\+json/)
      }
      t.equal(deliveries.find((delivery) => delivery.headers.authorization === 'Bearer cred-a')?.headers[NOTIFICATION_TOKEN_HEADER], 'second')
    })

    await t.test('a receiver that keeps failing is given up after RUN_CALLBACK_MAX_ATTEMPTS, waiting between attempts', async (t) => {
      receiver.statuses = [500, 503]
      const { callback } = await endedRun()
      t.equal(await worker.runOnce(), 'retry')
      t.equal(await worker.runOnce(), 'idle', 'not due again before its back-off')
      t.match(await rowOf(callback.id), { state: 'pending', last_status: 500, last_error: 'the receiver answered HTTP 500' })
      await runSql(database, [`UPDATE run_callbacks SET next_attempt_at = '${later(-1)}' WHERE id = '${callback.id}'`])
      t.equal(await worker.runOnce(), 'failed')
      t.match(await rowOf(callback.id), { state: 'failed', last_status: 503 })
    })

    await t.test('a URL that now resolves to a forbidden address is not dialled', async (t) => {
      const sender = new CallbackSender(new EgressPolicy([]))
      t.teardown(() => sender.close())
      const guarded = new CallbackWorker({ ...options, maxAttempts: 1, sender })
      const before = receiver.deliveries.length
      const { callback } = await endedRun()
      t.equal(await guarded.runOnce(), 'failed')
      t.match(await rowOf(callback.id), { state: 'failed', last_status: null, last_error: /forbidden/ })
      t.equal(receiver.deliveries.length, before)
    })

    await t.test('a callback whose run is gone is purged once older than the retention', async (t) => {
      const id = newCallbackId()
      await ledger.runCallbacks.insert({ id, runId: 'run_gone', url: receiver.url, secret: newCallbackSecret(), token: null, createdAt: later(-3601) })
      t.equal(await worker.runOnce(), 'idle')
      t.equal(await rowOf(id), undefined)
    })
  })
}
