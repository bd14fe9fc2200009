import { test, type Test } from 'tap'
import { TaskState, type Task } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { carried, checkIdempotencyAcrossDoors, checkPaymentRequired, PAID_BEE, PAID_INPUT, type DoorCall } from '../../doors.js'
import { startFakeBee } from '../../fake-bee.js'
import { startFakeOpenMeteo } from '../../fake-open-meteo.js'
import { balanceOf, createWallet } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { beeMessage, connect, listening, send } from './clients.js'

async function setup (t: Parameters<typeof listening>[0]) {
  const meteo = await startFakeOpenMeteo()
  t.teardown(meteo.close)
  const { app, base } = await listening(t, { env: { OPEN_METEO_URL: meteo.url, EGRESS_ALLOWLIST: '127.0.0.1' } })
  return { app, base, client: await connect(base) }
}

const text = 'The harvest was wonderful this year. Everyone in the village was delighted. The bees were busy all summer long.'

/** The answer as a task (Apiary always answers SendMessage with one). */
async function run (client: Client, beeId: string, input: unknown, headers: Record<string, string> = {}, metadata?: Record<string, unknown>): Promise<Task> {
  const answer = await send(client, beeMessage(beeId, input), headers, metadata)
  if (!('status' in answer)) throw new Error(`a message, not a task: ${JSON.stringify(answer)}`)
  return answer
}

/** The Honey of a completed task: its one artifact's one data part. */
function honeyOf (task: Task): Record<string, any> {
  const content = task.artifacts[0]?.parts[0]?.content
  if (content?.$case !== 'data') throw new Error('no data part')
  return content.value
}

/** The error body of a task that did not complete: the data part of its status message. */
function refusalOf (task: Task): { text: string, body: Record<string, any> } {
  const [first, second] = task.status?.message?.parts ?? []
  if (first?.content?.$case !== 'text' || second?.content?.$case !== 'data') throw new Error('no text and data parts')
  return { text: first.content.value, body: second.content.value }
}

/** The paid call over A2A; a refusal must be a task that needs authorization, said by the agent, with no Honey. */
function overA2a (t: Test, client: Client): DoorCall {
  return async (call) => {
    const { headers, meta } = carried(call)
    const task = await run(client, PAID_BEE, PAID_INPUT, headers, meta)
    if (task.status?.state === TaskState.TASK_STATE_COMPLETED) {
      return { replayed: task.metadata?.['ai.apiary/replayed'] === true, charged: 'ai.apiary/charge' in (task.metadata ?? {}), body: honeyOf(task) }
    }
    t.equal(task.status?.state, TaskState.TASK_STATE_AUTH_REQUIRED)
    t.same(task.artifacts, [], 'no Honey')
    t.equal(task.status?.message?.role, 2, 'said by the agent')
    t.equal(task.status?.message?.taskId, task.id)
    const { text: why, body } = refusalOf(task)
    t.equal(body.message, why, 'its message as the text part')
    return { replayed: false, charged: false, body }
  }
}

test('each built-in Bee answers with a completed task whose artifact is its Honey, as HTTP gives it', async (t) => {
  const { app, client } = await setup(t)
  const wallet = await createWallet(app, 1)
  const paying = { 'X-Registry-Wallet-Token': wallet.token }

  const http = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text, maxLength: 12 } })
  const summary = await run(client, 'text-summarizer', { text, maxLength: 12 })
  t.equal(summary.status?.state, TaskState.TASK_STATE_COMPLETED)
  t.match(summary.id, /^[0-9a-f-]{36}$/)
  t.ok(summary.contextId.length > 0, 'a context is made for it')
  t.equal(summary.artifacts[0]?.parts[0]?.mediaType, 'application/json')
  t.match(honeyOf(summary), { beeId: 'text-summarizer', result: http.json().result, confidence: http.json().confidence, freshness: 0, timestamp: /^\d{4}-/ })
  t.same(summary.metadata, { 'ai.apiary/replayed': false }, 'a free call charges nothing')

  const sentiment = await run(client, 'sentiment-analyzer', { text: 'I love this, it is wonderful!' }, paying)
  t.equal(sentiment.status?.state, TaskState.TASK_STATE_COMPLETED)
  t.equal(honeyOf(sentiment).result.sentiment, 'positive')
  t.same(sentiment.metadata?.['ai.apiary/charge'], { amount: 0.001, balance: 0.999, currency: 'USD' })

  const weather = await run(client, 'weather-sensor', { latitude: 48.85, longitude: 2.35 }, paying)
  t.equal(weather.status?.state, TaskState.TASK_STATE_COMPLETED)
  t.match(honeyOf(weather), { beeId: 'weather-sensor', result: { temperature: 13.4, condition: 'partly cloudy', humidity: 71 } })
  t.ok(honeyOf(weather).freshness >= 120, 'freshness is the observation\'s age')
  t.same(weather.metadata?.['ai.apiary/charge'], { amount: 0.002, balance: 0.997, currency: 'USD' })
  t.equal(await balanceOf(app, wallet.id), 0.997)

  const kept = await send(client, beeMessage('text-summarizer', { text }, { contextId: 'conversation-1' }))
  t.equal('contextId' in kept && kept.contextId, 'conversation-1', 'the message\'s context is kept')
})

test('a paid call without a wallet, with an unknown or an unfunded one, needs authorization (the 402 body) and charges nothing', async (t) => {
  const { app, client } = await setup(t)
  await checkPaymentRequired(t, app, 'A2A', overA2a(t, client))
})

test('a funded call costs the price exactly once; the header wins over metadata', async (t) => {
  const { app, client } = await setup(t)
  const payer = await createWallet(app, 1)
  const other = await createWallet(app, 1)
  const task = await run(client, 'weather-sensor', { latitude: 1, longitude: 2 }, { 'X-Registry-Wallet-Token': payer.token }, { 'ai.apiary/walletToken': other.token })
  t.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
  const own = await app.inject({ method: 'GET', url: '/api/wallet', headers: { 'x-registry-wallet-token': payer.token } })
  t.equal(own.json().balance, 0.998, 'GET /api/wallet shows the price taken once')
  t.equal(await balanceOf(app, other.id), 1, 'the metadata wallet was not charged')
})

test('bad input is a rejected task, an upstream failure a failed one, an unknown Bee invalid params: none charged', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const { app, client } = await setup(t)
  const wallet = await createWallet(app, 1)
  const paying = { 'X-Registry-Wallet-Token': wallet.token }
  const bad = await run(client, 'weather-sensor', { latitude: 95, longitude: 2 }, paying)
  t.equal(bad.status?.state, TaskState.TASK_STATE_REJECTED)
  t.match(refusalOf(bad).body, { code: 'VALIDATION_FAILED', details: [{ field: '/latitude' }] })

  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('flaky', fake.url, { pricing: { type: 'pay-per-use', costPerCall: 0.5 } }))
  fake.mode = 'error'
  const failed = await run(client, 'flaky', { text: 'hey' }, paying)
  t.equal(failed.status?.state, TaskState.TASK_STATE_FAILED)
  t.equal(refusalOf(failed).body.code, 'BEE_UPSTREAM_ERROR')

  const error = await send(client, beeMessage('no-such-bee', {}), paying).catch((caught: unknown) => caught)
  t.match(error, { envelopeCode: -32602, message: /No Bee has the id "no-such-bee"/ }, 'an unknown skill is invalid params')
  t.match((error as { data: unknown }).data, [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'BEE_NOT_FOUND', domain: 'apiary' },
    { '@type': 'type.googleapis.com/google.protobuf.Struct', value: { error: 'Not Found', code: 'BEE_NOT_FOUND' } }
  ], 'our code and body in data')
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('an idempotent retry is charged once whether it comes over HTTP or A2A', async (t) => {
  const { app, client } = await setup(t)
  await checkIdempotencyAcrossDoors(t, app, 'A2A', overA2a(t, client))
})
