import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { ClientFactory } from '@a2a-js/sdk/client'
import { TaskNotFoundError } from '@a2a-js/sdk/errors'
import { ClientFactory as LegacyClientFactory } from 'a2a-sdk-v03/client'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { backends } from '../../databases.js'
import { balanceOf, build, createWallet } from '../../helper.js'
import { startFakeStreamBee, ticks } from '../../fake-stream-bee.js'
import { beeBody, publish, publishingSetup } from '../../publishing-helper.js'
import { openSse } from '../../sse-client.js'
import { startWebhookReceiver } from '../../webhook-receiver.js'
import { within } from '../../within.js'
import { beeMessage } from './clients.js'

const eventSchema = { type: 'object', properties: { tick: { type: 'integer', description: 'Which tick.' } }, required: ['tick'] }

/** TaskState as the 1.0 SDK's enum numbers it. */
const WORKING = 2
const COMPLETED = 3

const kinds = async (app: FastifyInstance, walletId: string) => (await app.ledger.journal.recent(walletId, 100)).map((entry) => entry.kind).sort()

type V1Event = { payload?: { $case: string, value: any } }

/** What a 1.0 stream said, one line an event: the case, and the state or the artifact's data. */
function summary (events: V1Event[]): string[] {
  return events.map(({ payload }) => {
    if (payload?.$case === 'task' || payload?.$case === 'statusUpdate') return `${payload.$case}:${String(payload.value.status?.state)}`
    if (payload?.$case === 'artifactUpdate') return `artifact:${String(payload.value.artifact.artifactId)}`
    return String(payload?.$case)
  })
}

const dataOf = (event: V1Event | undefined) => event?.payload?.value.artifact?.parts[0]?.content?.value

for (const backend of backends) {
  test(`A2A streams and push notifications on ${backend.name}, on 1.0 and 0.3`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const env = { DATABASE_URL: database.url, RUN_POLL_MS: '50', RUN_LEASE_SECONDS: '3', RUN_CALLBACK_RETRY_SECONDS: '1' }
    const { app, fake, publisher } = await publishingSetup(t, env)
    const streamFake = await startFakeStreamBee()
    t.teardown(streamFake.close)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    const paid = { type: 'pay-per-use', costPerCall: 0.25 }
    await publish(app, publisher.headers, beeBody('ticker', streamFake.url, { pricing: paid, config: { primaryServices: ['ticks'], executionMode: 'stream', eventSchema } }))
    await publish(app, publisher.headers, beeBody('slow-shouter', fake.url, { pricing: paid, config: { executionMode: 'async', maxRunSeconds: 60 } }))
    let release = () => {}
    /** The async Bee's upstream answers once `release()` is called (or after 20 s), whenever its call comes. */
    const held = () => {
      let open = () => {}
      const gate = new Promise<void>((resolve) => { open = resolve })
      const timer = setTimeout(open, 20_000)
      release = () => { clearTimeout(timer); open() }
      fake.beforeAnswer = async () => await gate
    }
    t.teardown(() => release())
    const receiver = await startWebhookReceiver()
    t.teardown(receiver.close)
    const client = await new ClientFactory().createFromUrl(base)
    const legacy = await new LegacyClientFactory().createFromUrl(base)
    const legacyMessage = (beeId: string) => ({
      kind: 'message' as const, messageId: randomUUID(), role: 'user' as const, parts: [{ kind: 'data' as const, data: { beeId, input: { text: 'hi' } } }]
    })
    const v1Send = (beeId: string, returnImmediately: boolean, taskPushNotificationConfig?: Record<string, unknown>) => ({
      tenant: '',
      message: beeMessage(beeId, { text: 'hi' }),
      metadata: undefined,
      configuration: { acceptedOutputModes: [], taskPushNotificationConfig: taskPushNotificationConfig as never, returnImmediately }
    })

    await t.test('the card declares streaming and push notifications', async (t) => {
      const card = await (await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })).json() as { capabilities: unknown }
      t.match(card.capabilities, { streaming: true, pushNotifications: true })
      const legacyCard = await (await fetch(`${base}/.well-known/agent-card.json`)).json() as { capabilities: unknown }
      t.match(legacyCard.capabilities, { streaming: true, pushNotifications: true })
    })

    await t.test('1.0: SendStreamingMessage of a stream Bee: its events as artifact updates, then the Honey and COMPLETED; captured once', async (t) => {
      streamFake.script = ticks(3)
      const wallet = await createWallet(app, 1)
      const events: V1Event[] = []
      for await (const event of client.sendMessageStream(v1Send('ticker', false), { serviceParameters: { 'X-Registry-Wallet-Token': wallet.token } })) {
        events.push(event as V1Event)
      }
      t.same(summary(events), ['task:1', `statusUpdate:${WORKING}`, 'artifact:event-1', 'artifact:event-2', 'artifact:event-3', 'artifact:honey', `statusUpdate:${COMPLETED}`])
      t.same(events.slice(2, 5).map(dataOf), [{ tick: 1 }, { tick: 2 }, { tick: 3 }], 'each event, as the Bee sent it')
      t.match(dataOf(events[5]), { beeId: 'ticker', result: { shout: 'HI', length: 2 } })
      const taskId = events[0]?.payload?.value.id as string
      t.ok(events.every((event) => event.payload?.$case === 'task' || event.payload?.value.taskId === taskId), 'all about one task')
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'], 'one hold, one capture')
      t.equal(await balanceOf(app, wallet.id), 0.75)
    })

    await t.test('0.3: message/stream of a stream Bee: the same, in 0.3\'s shapes, the last status final', async (t) => {
      streamFake.script = ticks(2)
      const wallet = await createWallet(app, 1)
      const events: any[] = []
      for await (const event of legacy.sendMessageStream({ message: legacyMessage('ticker') }, { serviceParameters: { 'X-Registry-Wallet-Token': wallet.token } })) {
        events.push(event)
      }
      t.same(events.map((event) => event.kind === 'artifact-update' ? `artifact:${String(event.artifact.artifactId)}` : `${String(event.kind)}:${String(event.status.state)}`),
        ['task:submitted', 'status-update:working', 'artifact:event-1', 'artifact:event-2', 'artifact:honey', 'status-update:completed'])
      t.match(events[2], { kind: 'artifact-update', artifact: { parts: [{ kind: 'data', data: { tick: 1 } }] } })
      t.equal(events.at(-1).final, true)
      t.equal(events[1].final, false)
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
    })

    await t.test('a client that leaves a stream Bee\'s streaming send cancels its run: the hold is voided, never captured', async (t) => {
      streamFake.script = [{ event: 'data', data: '{"tick":1}' }]
      streamFake.hang = true
      t.teardown(() => { streamFake.hang = false })
      const wallet = await createWallet(app, 1)
      const before = streamFake.closedEarly.length
      const stream = await openSse(`${base}/a2a`, {
        method: 'POST',
        headers: { 'a2a-version': '1.0', 'x-registry-wallet-token': wallet.token },
        body: { jsonrpc: '2.0', id: 7, method: 'SendStreamingMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { beeId: 'ticker', input: { text: 'hi' } } }] } } }
      })
      await stream.received(3)
      const taskId = JSON.parse(stream.events[0]?.data ?? '{}').result.task.id as string
      t.match(JSON.parse(stream.events[2]?.data ?? '{}'), { id: 7, result: { artifactUpdate: { taskId, artifact: { parts: [{ data: { tick: 1 } }] } } } })
      const closedAt = Date.now()
      stream.close()
      t.not(await within(10_000, async () => (await kinds(app, wallet.id)).includes('void')), null, 'voided')
      t.comment(`voided ${Date.now() - closedAt} ms after the client went`)
      t.not(await within(5000, async () => streamFake.closedEarly.length > before), null, 'the upstream call was stopped')
      const task = await client.getTask({ tenant: '', id: taskId }, { serviceParameters: { 'X-Registry-Wallet-Token': wallet.token } })
      t.equal(task.status?.state, 5, 'CANCELED')
      t.equal(await balanceOf(app, wallet.id), 1)
      t.equal(app.openStreams.open, 0, 'its place given back')
    })

    await t.test('an async Bee\'s task: subscribed (1.0 and 0.3) until it completes; ListTasks lists it; a stranger is refused', async (t) => {
      held()
      const wallet = await createWallet(app, 1)
      const headers = { 'X-Registry-Wallet-Token': wallet.token }
      const started = await client.sendMessage(v1Send('slow-shouter', true), { serviceParameters: headers }) as { id: string }
      const following: V1Event[] = []
      const followed = (async () => {
        for await (const event of client.resubscribeTask({ tenant: '', id: started.id }, { serviceParameters: headers })) following.push(event as V1Event)
      })()
      const legacyFollowing: any[] = []
      const legacyFollowed = (async () => {
        for await (const event of legacy.resubscribeTask({ id: started.id }, { serviceParameters: headers })) legacyFollowing.push(event)
      })()
      t.not(await within(5000, async () => following.length > 0 && legacyFollowing.length > 0), null, 'both streams opened')

      const stranger = { 'X-Registry-Wallet-Token': (await createWallet(app, 1)).token }
      await t.rejects(client.getTask({ tenant: '', id: started.id }, { serviceParameters: stranger }), TaskNotFoundError, 'GetTask')
      await t.rejects(async () => { for await (const _ of client.resubscribeTask({ tenant: '', id: started.id }, { serviceParameters: stranger })) { /* none */ } }, TaskNotFoundError, 'SubscribeToTask')
      await t.rejects(client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: started.id, url: receiver.url, token: '', authentication: undefined }, { serviceParameters: stranger }),
        TaskNotFoundError, 'CreateTaskPushNotificationConfig')
      await t.rejects(client.listTaskPushNotificationConfig({ tenant: '', taskId: started.id, pageSize: 0, pageToken: '' }, { serviceParameters: stranger }), TaskNotFoundError, 'ListTaskPushNotificationConfigs')
      await t.rejects(legacy.resubscribeTask({ id: started.id }, { serviceParameters: stranger }).next(), { cause: { errorResponse: { error: { code: -32001 } } } }, '0.3 tasks/resubscribe')
      const listed = await client.listTasks({ tenant: '', contextId: '', status: 0, pageToken: '', statusTimestampAfter: undefined }, { serviceParameters: headers })
      t.same(listed.tasks.map((task) => task.id), [started.id], 'ListTasks: the caller\'s tasks')
      t.same((await client.listTasks({ tenant: '', contextId: '', status: 0, pageToken: '', statusTimestampAfter: undefined }, { serviceParameters: stranger })).tasks, [], 'none of the stranger\'s')

      release()
      await Promise.all([followed, legacyFollowed])
      t.equal(following[0]?.payload?.$case, 'task', 'the task comes first')
      t.match(summary(following).slice(-2), ['artifact:honey', `statusUpdate:${COMPLETED}`])
      t.match(dataOf(following.at(-2)), { result: { shout: 'HI' } })
      t.match(legacyFollowing.at(-1), { kind: 'status-update', taskId: started.id, status: { state: 'completed' }, final: true })
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
      await t.rejects(async () => { for await (const _ of client.resubscribeTask({ tenant: '', id: started.id }, { serviceParameters: headers })) { /* none */ } },
        { name: 'UnsupportedOperationError' }, 'an ended task is read with GetTask, not subscribed to')
    })

    await t.test('two instances: a task started on A is subscribed to on B, told of its end through NOTIFY',
      { skip: backend.name === 'sqlite' ? 'one instance on SQLite' : false }, async (t) => {
        const other = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', ...env } })
        await other.listen({ port: 0, host: '127.0.0.1' })
        const onB = await new ClientFactory().createFromUrl(`http://127.0.0.1:${(other.server.address() as AddressInfo).port}`)
        held()
        const headers = { 'X-Registry-Wallet-Token': (await createWallet(app, 1)).token }
        const started = await client.sendMessage(v1Send('slow-shouter', true), { serviceParameters: headers }) as { id: string }
        const events: V1Event[] = []
        const followed = (async () => {
          for await (const event of onB.resubscribeTask({ tenant: '', id: started.id }, { serviceParameters: headers })) events.push(event as V1Event)
        })()
        t.not(await within(5000, async () => events.length > 0), null, 'B answered the task')
        const released = Date.now()
        release()
        await followed
        // A reader without news looks every 5 s: ending sooner, B was told.
        t.ok(Date.now() - released < 3000, `B's stream ended within 3 s (${Date.now() - released} ms)`)
        t.match(summary(events).slice(-2), ['artifact:honey', `statusUpdate:${COMPLETED}`])
      })

    await t.test('1.0: a push config gets the task with its token and Authorization once the run ends, retried after a 500', async (t) => {
      held()
      receiver.deliveries.length = 0
      receiver.statuses.push(500)
      const wallet = await createWallet(app, 1)
      const headers = { 'X-Registry-Wallet-Token': wallet.token }
      const started = await client.sendMessage(v1Send('slow-shouter', true), { serviceParameters: headers }) as { id: string }
      const config = await client.createTaskPushNotificationConfig({
        tenant: '', id: 'cfg-1', taskId: started.id, url: receiver.url, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'secret-1' }
      }, { serviceParameters: headers })
      t.match(config, { id: 'cfg-1', taskId: started.id, url: receiver.url, token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'secret-1' } })
      const second = await client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: started.id, url: receiver.url, token: '', authentication: undefined }, { serviceParameters: headers })
      t.match(second.id, /^[0-9a-f-]{36}$/, 'an id given when none was')
      t.same((await client.listTaskPushNotificationConfig({ tenant: '', taskId: started.id, pageSize: 0, pageToken: '' }, { serviceParameters: headers })).configs.map((one) => one.id), ['cfg-1', second.id])
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: second.id }, { serviceParameters: headers })
      await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: second.id }, { serviceParameters: headers })
      t.match(await client.getTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: 'cfg-1' }, { serviceParameters: headers }), { url: receiver.url, token: 'tok-1' })
      await t.rejects(client.getTaskPushNotificationConfig({ tenant: '', taskId: started.id, id: second.id }, { serviceParameters: headers }), TaskNotFoundError, 'deleted')
      const refused = await fetch(`${base}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-registry-wallet-token': wallet.token },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CreateTaskPushNotificationConfig', params: { taskId: started.id, url: 'http://10.0.0.1/hook' } })
      })
      t.match(await refused.json(), { error: { code: -32602 } }, 'a private address is refused by the egress guard')

      release()
      t.not(await within(15_000, async () => receiver.deliveries.length >= 2), null, 'delivered again after the 500')
      t.equal(receiver.deliveries.length, 2, 'the deleted config got nothing')
      for (const delivery of receiver.deliveries) {
        t.equal(delivery.headers['x-a2a-notification-token'], 'tok-1')
        t.equal(delivery.headers.authorization, 'Bearer secret-1')
        t.match(delivery.headers['content-type'], /^application\/a2a\+json/)
        t.match(JSON.parse(delivery.body), { task: { id: started.id, status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'honey', parts: [{ data: { result: { shout: 'HI' } } }] }] } })
      }
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
    })

    await t.test('0.3: a push config in message/send\'s configuration gets the 0.3 task; tasks/pushNotificationConfig/* read it', async (t) => {
      held()
      receiver.deliveries.length = 0
      const wallet = await createWallet(app, 1)
      const headers = { 'X-Registry-Wallet-Token': wallet.token }
      const answer = await legacy.sendMessage({
        message: legacyMessage('slow-shouter'),
        configuration: { blocking: false, pushNotificationConfig: { id: 'old-1', url: receiver.url, token: 'tok-03', authentication: { schemes: ['Bearer'], credentials: 'c-03' } } }
      }, { serviceParameters: headers })
      if (answer.kind !== 'task') throw new Error('not a task')
      // The client's type names only the task; 0.3's params add the config's id.
      const which = { id: answer.id, pushNotificationConfigId: 'old-1' }
      t.match(await legacy.getTaskPushNotificationConfig(which, { serviceParameters: headers }),
        { taskId: answer.id, pushNotificationConfig: { id: 'old-1', url: receiver.url, token: 'tok-03', authentication: { schemes: ['Bearer'], credentials: 'c-03' } } })
      const set = await legacy.setTaskPushNotificationConfig({ taskId: answer.id, pushNotificationConfig: { id: 'old-2', url: receiver.url } }, { serviceParameters: headers })
      t.match(set, { taskId: answer.id, pushNotificationConfig: { id: 'old-2' } })
      t.same((await legacy.listTaskPushNotificationConfig({ id: answer.id }, { serviceParameters: headers })).map((one) => one.pushNotificationConfig.id), ['old-1', 'old-2'])
      await legacy.deleteTaskPushNotificationConfig({ id: answer.id, pushNotificationConfigId: 'old-2' }, { serviceParameters: headers })
      const stranger = { 'X-Registry-Wallet-Token': (await createWallet(app, 1)).token }
      await t.rejects(legacy.getTaskPushNotificationConfig(which, { serviceParameters: stranger }), { name: 'TaskNotFoundError' },
        'a stranger reads no config')
      const elsewhere = { taskId: answer.id, pushNotificationConfig: { url: receiver.url } }
      await t.rejects(legacy.setTaskPushNotificationConfig(elsewhere, { serviceParameters: stranger }), { name: 'TaskNotFoundError' }, 'nor sets one')
      await t.rejects(legacy.getTask({ id: answer.id }, { serviceParameters: stranger }), { name: 'TaskNotFoundError' }, 'nor reads the task')
      release()
      t.not(await within(15_000, async () => receiver.deliveries.length >= 1), null, 'delivered')
      const [delivery] = receiver.deliveries
      t.equal(delivery?.headers['x-a2a-notification-token'], 'tok-03')
      t.equal(delivery?.headers.authorization, 'Bearer c-03')
      t.match(JSON.parse(delivery?.body ?? '{}'), { kind: 'task', id: answer.id, status: { state: 'completed' }, artifacts: [{ parts: [{ kind: 'data', data: { result: { shout: 'HI' } } }] }] })
      t.equal(receiver.deliveries.length, 1, 'the deleted config got nothing')
    })
  })
}
