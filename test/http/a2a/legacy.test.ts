import { randomUUID } from 'node:crypto'
import { test, type Test } from 'tap'
import type { Message, Task } from 'a2a-sdk-v03'
import { ClientFactory, type Client } from 'a2a-sdk-v03/client'
import { ClientFactory as ClientFactoryV1 } from '@a2a-js/sdk/client'
import { carried, checkIdempotencyAcrossDoors, checkPaymentRequired, PAID_BEE, PAID_INPUT, type DoorCall } from '../../doors.js'
import { balanceOf, createWallet } from '../../helper.js'
import { beeMessage, listening, send } from './clients.js'

/** A 0.3 user message whose one data part asks `beeId` to run on `input`, as a 0.3 client builds it. */
const legacyMessage = (beeId: string, input: unknown): Message =>
  ({ kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'data', data: { beeId, input } }] })

/** The answer of a 0.3 message/send as a task (Apiary always answers with one). */
async function run (client: Client, beeId: string, input: unknown, headers: Record<string, string> = {}, metadata?: Record<string, unknown>): Promise<Task> {
  const answer = await client.sendMessage({ message: legacyMessage(beeId, input), metadata }, { serviceParameters: headers })
  if (answer.kind !== 'task') throw new Error(`a message, not a task: ${JSON.stringify(answer)}`)
  return answer
}

function dataOf (parts: Task['artifacts'] extends Array<infer A> | undefined ? A extends { parts: infer P } ? P : never : never, at = 0): Record<string, any> {
  const part = parts[at]
  if (part?.kind !== 'data') throw new Error(`no data part at ${at}`)
  return part.data
}

/** A 0.3 client of the last 0.3 release of @a2a-js/sdk, made as its README shows: from the card at the base URL. */
async function setup (t: Test) {
  const { app, base } = await listening(t)
  return { app, base, client: await new ClientFactory().createFromUrl(base) }
}

/** The paid call over A2A 0.3; a refusal is a task in auth-required, said by the agent, with no Honey. */
function overLegacy (t: Test, client: Client): DoorCall {
  return async (call) => {
    const { headers, meta } = carried(call)
    const task = await run(client, PAID_BEE, PAID_INPUT, headers, meta)
    if (task.status.state === 'completed') {
      return { replayed: task.metadata?.['ai.apiary/replayed'] === true, charged: 'ai.apiary/charge' in (task.metadata ?? {}), body: dataOf(task.artifacts![0]!.parts) }
    }
    t.equal(task.status.state, 'auth-required')
    t.same(task.artifacts, [], 'no Honey')
    const message = task.status.message!
    t.match(message, { kind: 'message', role: 'agent', taskId: task.id })
    const [why] = message.parts
    const body = dataOf(message.parts, 1)
    t.equal(why?.kind === 'text' && why.text, body.message, 'its message as the text part')
    return { replayed: false, charged: false, body }
  }
}

test('a 0.3 client reads the 0.3 card, which lists both interfaces, and a 1.0 client still reads the 1.0 card', async (t) => {
  const { base } = await setup(t)
  const legacy = await (await fetch(`${base}/.well-known/agent-card.json`)).json() as Record<string, any>
  t.match(legacy, { protocolVersion: '0.3.0', url: `${base}/a2a`, preferredTransport: 'JSONRPC', supportsAuthenticatedExtendedCard: false })
  t.same(legacy.securitySchemes.walletToken, { type: 'apiKey', in: 'header', name: 'X-Registry-Wallet-Token', description: 'Token of a funded wallet; pay-per-use Bees charge it per call.' })
  t.same(legacy.skills.find((skill: { id: string }) => skill.id === PAID_BEE).security, [{ walletToken: [] }], 'a paid skill names the wallet')
  t.notOk('security' in legacy.skills.find((skill: { id: string }) => skill.id === 'text-summarizer'), 'a free one nothing')
  const both = [
    { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }
  ]
  t.same(legacy.supportedInterfaces, both, 'the 1.0 interfaces are kept in the 0.3 card')
  const modern = await fetch(`${base}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })
  t.match(modern.headers.get('vary'), /A2A-Version/i, 'caches keep the two apart')
  const card = await modern.json() as Record<string, any>
  t.same(card.supportedInterfaces, both)
  t.notOk('url' in card, 'the 1.0 card has no 0.3 fields')

  const v1 = await new ClientFactoryV1().createFromUrl(base)
  const task = await send(v1, beeMessage('text-summarizer', { text: 'One sentence. Two sentences.' }))
  t.equal('status' in task && task.status?.state, 3, 'the 1.0 client picks the 1.0 interface: TASK_STATE_COMPLETED')
})

test('message/send runs the Bee and answers with the finished 0.3 task, charged as over HTTP', async (t) => {
  const { app, client } = await setup(t)
  const wallet = await createWallet(app, 1)
  const free = await run(client, 'text-summarizer', { text: 'Bees make honey. Honey is sweet. Bears like honey.', maxLength: 5 })
  t.match(free, { kind: 'task', id: /^[0-9a-f-]{36}$/, status: { state: 'completed', timestamp: /^\d{4}-/ }, metadata: { 'ai.apiary/replayed': false } })
  t.match(free.artifacts, [{ artifactId: 'honey', name: 'honey', parts: [{ kind: 'data', data: { beeId: 'text-summarizer', confidence: Number } }] }])

  const paid = await run(client, PAID_BEE, PAID_INPUT, { 'X-Registry-Wallet-Token': wallet.token })
  t.equal(paid.status.state, 'completed')
  t.same(paid.metadata?.['ai.apiary/charge'], { amount: 0.001, balance: 0.999, currency: 'USD' })
  t.equal(await balanceOf(app, wallet.id), 0.999)

  const bad = await run(client, 'weather-sensor', { latitude: 95, longitude: 2 }, { 'X-Registry-Wallet-Token': wallet.token })
  t.equal(bad.status.state, 'rejected')
  t.match(dataOf(bad.status.message!.parts, 1), { code: 'VALIDATION_FAILED', details: [{ field: '/latitude' }] })
  const unknown = await client.sendMessage({ message: legacyMessage('no-such-bee', {}) }).catch((caught: unknown) => caught)
  t.match(unknown, { message: /No Bee has the id "no-such-bee"/ }, 'an unknown skill is an error, not a task')
  t.equal(await balanceOf(app, wallet.id), 0.999, 'refusals charge nothing')
})

test('over 0.3, a paid call without a funded wallet needs authorization (the 402 body) and charges nothing', async (t) => {
  const { app, client } = await setup(t)
  await checkPaymentRequired(t, app, 'A2A 0.3', overLegacy(t, client))
})

test('an idempotent retry is charged once whether it comes over HTTP or A2A 0.3', async (t) => {
  const { app, client } = await setup(t)
  await checkIdempotencyAcrossDoors(t, app, 'A2A 0.3', overLegacy(t, client))
})

test('without A2A-Version, a 1.0 method is pointed to the header, and what 0.3 cannot do is refused; tasks/get finds no stranger\'s task', async (t) => {
  const { base, client } = await setup(t)
  const post = async (method: string, headers: Record<string, string> = {}) => await (await fetch(`${base}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} })
  })).json() as { error: { code: number, message: string, data?: Array<Record<string, any>> } }
  t.match((await post('SendMessage')).error, { code: -32601, message: /send A2A-Version: 1\.0/ })
  t.match((await post('SendMessage', { 'a2a-version': '0.3' })).error, { code: -32601 }, '0.3 named is 0.3 too')
  t.match((await post('tasks/pushNotificationConfig/set')).error, { code: -32602 }, 'push configs are served: this names no task')
  t.match((await post('agent/getAuthenticatedExtendedCard')).error, { code: -32004 }, 'there is no extended card')
  t.match((await post('message/send', { 'a2a-version': '2.0' })).error, { code: -32009, data: [{ metadata: { supportedVersions: '1.0, 0.3' } }] })
  await t.rejects(client.getTask({ id: 'any' }), { name: 'TaskNotFoundError' }, 'tasks/get is served: no such task')
  await t.rejects(client.cancelTask({ id: 'any' }), { name: 'TaskNotFoundError' })
})
