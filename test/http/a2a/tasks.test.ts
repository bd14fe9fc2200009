import type { AddressInfo } from 'node:net'
import { randomUUID } from 'node:crypto'
import { ClientFactory, type Client } from '@a2a-js/sdk/client'
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors'
import { ClientFactory as LegacyClientFactory } from 'a2a-sdk-v03/client'
import type { Task as LegacyTask } from 'a2a-sdk-v03'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { backends } from '../../databases.js'
import { balanceOf, createWallet } from '../../helper.js'
import { beeBody, publish, publishingSetup } from '../../publishing-helper.js'
import { within } from '../../within.js'
import { beeMessage } from './clients.js'

/** How long the slow upstream takes. */
const UPSTREAM_MS = 1500

/** TaskState as the 1.0 SDK's enum numbers it. */
const SUBMITTED = 1
const WORKING = 2
const COMPLETED = 3
const CANCELED = 5

const kinds = async (app: FastifyInstance, walletId: string) => (await app.ledger.journal.recent(walletId, 100)).map((entry) => entry.kind).sort()

type V1Task = {
  id: string, contextId: string, status?: { state: number }, artifacts: Array<{ parts: Array<{ content?: { $case: string, value?: unknown } }> }>
}

/** A 1.0 SendMessage of `beeId` on `input`; `returnImmediately` asks for the task at once. */
async function send (client: Client, beeId: string, input: unknown, headers: Record<string, string>, returnImmediately: boolean): Promise<V1Task> {
  const answer = await client.sendMessage({
    tenant: '',
    message: beeMessage(beeId, input),
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately },
    metadata: undefined
  }, { serviceParameters: headers })
  if (!('status' in answer)) throw new Error(`a message, not a task: ${JSON.stringify(answer)}`)
  return answer as unknown as V1Task
}

const honeyOf = (task: V1Task) => task.artifacts[0]?.parts[0]?.content?.value

for (const backend of backends) {
  test(`an async Bee over A2A on ${backend.name}: non-blocking send answers a task, GetTask reads it, CancelTask voids the hold, on 1.0 and 0.3`,
    { skip: backend.skip }, async (t) => {
      const database = await backend.open()
      t.teardown(database.drop)
      const { app, fake, publisher } = await publishingSetup(t, { DATABASE_URL: database.url, RUN_POLL_MS: '50', RUN_LEASE_SECONDS: '3', RUN_WAIT_SECONDS: '5' })
      await app.listen({ port: 0, host: '127.0.0.1' })
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
      const paid = { type: 'pay-per-use', costPerCall: 0.25 }
      await publish(app, publisher.headers, beeBody('slow-shouter', fake.url, { pricing: paid, config: { executionMode: 'async', maxRunSeconds: 60 } }))
      await publish(app, publisher.headers, beeBody('free-slow', fake.url, { config: { executionMode: 'async' } }))
      let release = () => {}
      const slowUpstream = (ms = UPSTREAM_MS) => {
        fake.beforeAnswer = async () => await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, ms)
          release = () => { clearTimeout(timer); resolve() }
        })
      }
      t.teardown(() => release())
      const client = await new ClientFactory().createFromUrl(base)
      const legacy = await new LegacyClientFactory().createFromUrl(base)

      await t.test('1.0: returnImmediately answers SUBMITTED; GetTask until COMPLETED gives the Honey, captured once', async (t) => {
        slowUpstream()
        const wallet = await createWallet(app, 1)
        const headers = { 'X-Registry-Wallet-Token': wallet.token }
        const started = Date.now()
        const task = await send(client, 'slow-shouter', { text: 'hi' }, headers, true)
        t.ok(Date.now() - started < UPSTREAM_MS, 'answered before the upstream did')
        t.match(task, { id: /^run_[0-9a-f]{32}$/, status: { state: SUBMITTED }, artifacts: [] })
        t.equal(await balanceOf(app, wallet.id), 0.75, 'held at admission')
        let read: V1Task | undefined
        t.not(await within(UPSTREAM_MS + 10_000, async () => {
          read = await client.getTask({ tenant: '', id: task.id }, { serviceParameters: headers }) as unknown as V1Task
          return read.status?.state === COMPLETED
        }), null, 'completed')
        t.match(honeyOf(read as V1Task), { beeId: 'slow-shouter', result: { shout: 'HI', length: 2 } })
        t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
        t.equal(await balanceOf(app, wallet.id), 0.75)
      })

      await t.test('1.0: a blocking send waits for a run that ends within RUN_WAIT_SECONDS and answers it COMPLETED', async (t) => {
        slowUpstream(300)
        const wallet = await createWallet(app, 1)
        const task = await send(client, 'slow-shouter', { text: 'bee' }, { 'X-Registry-Wallet-Token': wallet.token }, false)
        t.equal(task.status?.state, COMPLETED)
        t.match(honeyOf(task), { result: { shout: 'BEE' } })
      })

      await t.test('1.0: CancelTask voids the hold; an ended task is not cancelable; another caller finds no task', async (t) => {
        slowUpstream()
        const wallet = await createWallet(app, 1)
        const headers = { 'X-Registry-Wallet-Token': wallet.token }
        const task = await send(client, 'slow-shouter', { text: 'hi' }, headers, true)
        t.not(await within(5000, async () => (await client.getTask({ tenant: '', id: task.id }, { serviceParameters: headers })).status?.state === WORKING), null)
        const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, { serviceParameters: headers })
        t.equal(cancelled.status?.state, CANCELED)
        t.equal(await balanceOf(app, wallet.id), 1, 'the hold was voided')
        t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'])
        await t.rejects(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }, { serviceParameters: headers }), TaskNotCancelableError, 'not cancelable twice')
        release()
        const stranger = await createWallet(app, 1)
        await t.rejects(client.getTask({ tenant: '', id: task.id }, { serviceParameters: { 'X-Registry-Wallet-Token': stranger.token } }), TaskNotFoundError, 'not found by another wallet')
        const raw = await fetch(`${base}/a2a`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-registry-wallet-token': stranger.token },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'CancelTask', params: { id: task.id } })
        })
        t.match(await raw.json(), { error: { code: -32001 } }, 'TaskNotFound')
        t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'], 'never captured')
      })

      await t.test('0.3: message/send with blocking false, tasks/get until completed; tasks/cancel voids the hold', async (t) => {
        slowUpstream()
        const wallet = await createWallet(app, 2)
        const headers = { 'X-Registry-Wallet-Token': wallet.token }
        const message = () => ({ kind: 'message' as const, messageId: randomUUID(), role: 'user' as const, parts: [{ kind: 'data' as const, data: { beeId: 'slow-shouter', input: { text: 'hi' } } }] })
        const answer = await legacy.sendMessage({ message: message(), configuration: { blocking: false } }, { serviceParameters: headers })
        if (answer.kind !== 'task') throw new Error('not a task')
        t.match(answer, { kind: 'task', id: /^run_/, status: { state: 'submitted' } })
        let read: LegacyTask | undefined
        t.not(await within(UPSTREAM_MS + 10_000, async () => {
          read = await legacy.getTask({ id: answer.id }, { serviceParameters: headers })
          return read.status.state === 'completed'
        }), null, 'completed')
        const part = read?.artifacts?.[0]?.parts[0]
        t.match(part, { kind: 'data', data: { result: { shout: 'HI' } } })

        const second = await legacy.sendMessage({ message: message(), configuration: { blocking: false } }, { serviceParameters: headers })
        if (second.kind !== 'task') throw new Error('not a task')
        const cancelled = await legacy.cancelTask({ id: second.id }, { serviceParameters: headers })
        t.equal(cancelled.status.state, 'canceled')
        release()
        t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold', 'hold', 'void'], 'one capture, one void')
        t.equal(await balanceOf(app, wallet.id), 1.75)
      })

      await t.test('a free Bee\'s task, started without a wallet, is read by its task id alone', async (t) => {
        slowUpstream(200)
        const task = await send(client, 'free-slow', { text: 'ok' }, {}, true)
        t.match(task.id, /^run_[0-9a-f]{32}\.rk_/)
        t.not(await within(10_000, async () => (await client.getTask({ tenant: '', id: task.id })).status?.state === COMPLETED), null)
        await t.rejects(client.getTask({ tenant: '', id: task.id.split('.')[0] as string }), TaskNotFoundError, 'not without its key')
      })
    })
}
