import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { startFakeBee } from '../../fake-bee.js'
import { startFakeStreamBee, type ScriptedEvent } from '../../fake-stream-bee.js'
import { balanceOf, createWallet } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { openSse } from '../../sse-client.js'
import { within } from '../../within.js'
import { listening } from './clients.js'

const eventSchema = { type: 'object', properties: { tick: { type: 'integer', description: 'Which tick.' } }, required: ['tick'] }
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }

const kinds = async (app: FastifyInstance, walletId: string) => (await app.ledger.journal.recent(walletId, 100)).map((entry) => entry.kind).sort()

/** Two ticks, the Bee half done, a third tick, then the result. */
const SCRIPT: ScriptedEvent[] = [
  { event: 'data', data: '{"tick":1}' },
  { event: 'data', data: '{"tick":2}' },
  { event: 'progress', data: '{"progress":0.5}' },
  { event: 'data', data: '{"tick":3}' },
  { event: 'result', data: '{"shout":"HI","length":2}' }
]

type Progress = { progress: number, total?: number, message?: string, _meta?: Record<string, unknown> }
type Call = (name: string, token: string, onprogress: (progress: Progress) => void) => Promise<Record<string, any>>

/** Each SDK's client, its tools/call with an onprogress callback (which makes the client send a progressToken). */
const clients: Record<string, (url: URL) => Promise<{ call: Call, close: () => Promise<void> }>> = {
  async 'v1 client, 2025-11-25' (url) {
    const client = new V1Client({ name: 'apiary-test', version: '1.0.0' })
    await client.connect(new V1Transport(url))
    return {
      call: async (name, token, onprogress) => await client.callTool({ name, arguments: { text: 'hi' }, _meta: { 'ai.apiary/walletToken': token } }, CallToolResultSchema, { onprogress }),
      close: async () => { await client.close() }
    }
  },
  async 'v2 client, 2025 handshake' (url) {
    const client = new Client({ name: 'apiary-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(url))
    return {
      call: async (name, token, onprogress) => await client.callTool({ name, arguments: { text: 'hi' }, _meta: { 'ai.apiary/walletToken': token } }, { onprogress }),
      close: async () => { await client.close() }
    }
  },
  async 'v2 client, 2026-07-28' (url) {
    const client = new Client({ name: 'apiary-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(url))
    return {
      call: async (name, token, onprogress) => await client.callTool({ name, arguments: { text: 'hi' }, _meta: { 'ai.apiary/walletToken': token } }, { onprogress }),
      close: async () => { await client.close() }
    }
  }
}

test('a stream Bee over MCP with a progressToken: notifications/progress in order, then the result', async (t) => {
  const fake = await startFakeStreamBee()
  t.teardown(fake.close)
  const sync = await startFakeBee()
  t.teardown(sync.close)
  const { app, url } = await listening(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', STREAM_MAX_OPEN: '1' } })
  const publisher = await createPublisher(app)
  const paid = { type: 'pay-per-use', costPerCall: 0.25 }
  await publish(app, publisher.headers, beeBody('ticker', fake.url, { pricing: paid, config: { primaryServices: ['ticks'], executionMode: 'stream', eventSchema } }))
  await publish(app, publisher.headers, beeBody('quick', sync.url, { pricing: paid }))
  const post = async (body: object) => await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) })
  const call = (name: string, token: string, meta: Record<string, unknown> = {}) =>
    ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: { text: 'hi' }, _meta: { 'ai.apiary/walletToken': token, ...meta } } })

  for (const [name, connect] of Object.entries(clients)) {
    await t.test(`${name}: one notification per event, progress counting them, the fraction as progress / total; one capture`, async (t) => {
      fake.script = SCRIPT
      const wallet = await createWallet(app, 1)
      const { call, close } = await connect(url)
      t.teardown(close)
      const seen: Array<Progress | 'result'> = []
      const result = await call('ticker', wallet.token, (progress) => { seen.push(progress) })
      seen.push('result')
      t.match(result, { isError: undefined, structuredContent: { shout: 'HI', length: 2 } })
      t.match(seen, [
        { progress: 1, message: 'event 1', _meta: { 'ai.apiary/event': { tick: 1 } } },
        { progress: 2, message: 'event 2', _meta: { 'ai.apiary/event': { tick: 2 } } },
        { progress: 3, total: 6, message: '50% done' },
        { progress: 4, message: 'event 4', _meta: { 'ai.apiary/event': { tick: 3 } } },
        'result'
      ])
      t.equal(seen.length, 5)
      t.equal((seen[3] as Progress).total, undefined, 'a data event has no total')
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'], 'one hold, one capture')
      t.equal(await balanceOf(app, wallet.id), 0.75)
      t.equal(app.openStreams.open, 0, 'its place among the open streams is given back')
    })
  }

  await t.test('the wire: JSON without a progressToken (the stream Bee\'s result still answered), SSE with one', async (t) => {
    fake.script = SCRIPT
    const wallet = await createWallet(app, 1)
    const plain = await post(call('ticker', wallet.token))
    t.match(plain.headers.get('content-type'), /^application\/json/)
    t.match(await plain.json(), { id: 7, result: { structuredContent: { shout: 'HI' } } })

    const streamed = await openSse(url.href, { method: 'POST', headers: HEADERS, body: call('ticker', wallet.token, { progressToken: 'p-1' }) })
    t.match(streamed.headers['content-type'], /^text\/event-stream/)
    await streamed.ended
    const messages = streamed.events.map((event) => ({ event: event.event, ...JSON.parse(event.data) }))
    t.same(messages.map((message) => message.method ?? 'response'), ['notifications/progress', 'notifications/progress', 'notifications/progress', 'notifications/progress', 'response'])
    t.ok(messages.every((message) => message.event === 'message'))
    t.same(messages.slice(0, 4).map((message) => message.params.progressToken), ['p-1', 'p-1', 'p-1', 'p-1'])
    t.match(messages[4], { jsonrpc: '2.0', id: 7, result: { structuredContent: { shout: 'HI' } } })
    t.same(await kinds(app, wallet.id), ['capture', 'capture', 'deposit', 'hold', 'hold'], 'each call held and captured once')
  })

  await t.test('a sync Bee\'s call with a progressToken sends no notification: answered in JSON', async (t) => {
    const wallet = await createWallet(app, 1)
    const answer = await post(call('quick', wallet.token, { progressToken: 1 }))
    t.match(answer.headers.get('content-type'), /^application\/json/)
    t.match(await answer.json(), { id: 7, result: { structuredContent: { shout: 'HI' } } })
    t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
  })

  await t.test('a client that goes away mid-stream: the upstream is closed, the hold voided, its place given back', async (t) => {
    fake.script = [{ event: 'data', data: '{"tick":1}' }]
    fake.hang = true
    t.teardown(() => { fake.hang = false })
    const wallet = await createWallet(app, 1)
    const stream = await openSse(url.href, { method: 'POST', headers: HEADERS, body: call('ticker', wallet.token, { progressToken: 'p-2' }) })
    await stream.received(1)
    const before = fake.closedEarly.length
    stream.close()
    t.not(await within(2000, async () => fake.closedEarly.length > before), null, 'the upstream connection was closed')
    t.not(await within(2000, async () => (await kinds(app, wallet.id)).includes('void')), null, 'voided')
    t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'])
    t.equal(await balanceOf(app, wallet.id), 1)
    t.equal(app.openStreams.open, 0)
  })

  await t.test('2026-07-28: the 2.x client cancelling mid-stream (it aborts the request): the upstream is closed, the hold voided', async (t) => {
    fake.script = [{ event: 'data', data: '{"tick":1}' }]
    fake.hang = true
    t.teardown(() => { fake.hang = false })
    const wallet = await createWallet(app, 1)
    const client = new Client({ name: 'apiary-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StreamableHTTPClientTransport(url))
    t.teardown(() => client.close())
    const cancel = new AbortController()
    const before = fake.closedEarly.length
    const called = client.callTool({ name: 'ticker', arguments: { text: 'hi' }, _meta: { 'ai.apiary/walletToken': wallet.token } },
      { signal: cancel.signal, onprogress: () => { cancel.abort() } })
    await t.rejects(called)
    t.not(await within(2000, async () => fake.closedEarly.length > before), null, 'the upstream connection was closed')
    t.not(await within(2000, async () => (await kinds(app, wallet.id)).includes('void')), null, 'voided')
    t.equal(await balanceOf(app, wallet.id), 1)
  })

  await t.test('no place among the open streams: the notifications are left out, the answer is JSON, the call still served', async (t) => {
    fake.script = [{ event: 'data', data: '{"tick":1}' }]
    fake.hang = true
    const wallet = await createWallet(app, 1)
    const holder = await openSse(url.href, { method: 'POST', headers: HEADERS, body: call('ticker', wallet.token, { progressToken: 'p-3' }) })
    await holder.received(1)
    fake.hang = false
    fake.script = SCRIPT
    const other = await createWallet(app, 1)
    const answer = await post(call('ticker', other.token, { progressToken: 'p-4' }))
    t.match(answer.headers.get('content-type'), /^application\/json/)
    t.match(await answer.json(), { id: 7, result: { structuredContent: { shout: 'HI' } } })
    t.same(await kinds(app, other.id), ['capture', 'deposit', 'hold'])
    holder.close()
    t.not(await within(2000, async () => app.openStreams.open === 0), null)
  })
})
