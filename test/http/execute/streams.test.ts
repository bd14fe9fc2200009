import { once } from 'node:events'
import { connect, type AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { balanceOf, build, createWallet } from '../../helper.js'
import { startFakeStreamBee, ticks } from '../../fake-stream-bee.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { openSse } from '../../sse-client.js'
import { within } from '../../within.js'

const eventSchema = { type: 'object', properties: { tick: { type: 'integer', description: 'Which tick.' } }, required: ['tick'] }

const kinds = async (app: FastifyInstance, walletId: string) => (await app.ledger.journal.recent(walletId, 100)).map((entry) => entry.kind).sort()

test('a stream Bee called with Accept: text/event-stream', async (t) => {
  const fake = await startFakeStreamBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', STREAM_MAX_OPEN: '1' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('ticker', fake.url, {
    pricing: { type: 'pay-per-use', costPerCall: 0.25 },
    config: { primaryServices: ['ticks'], executionMode: 'stream', eventSchema }
  }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/bees/ticker/execute`
  const call = async (token: string) => await openSse(url, { method: 'POST', headers: { 'x-registry-wallet-token': token }, body: { text: 'hi' } })

  await t.test('5 events: the client gets the 5, then the honey event; captured once', async (t) => {
    fake.script = ticks(5)
    const wallet = await createWallet(app, 1)
    const stream = await call(wallet.token)
    t.equal(stream.status, 200)
    t.match(stream.headers['content-type'], /^text\/event-stream/)
    await stream.ended
    t.same(stream.events.map((event) => event.event), ['data', 'data', 'data', 'data', 'data', 'honey'])
    t.same(stream.events.slice(0, 5).map((event) => JSON.parse(event.data)), [1, 2, 3, 4, 5].map((tick) => ({ tick })))
    t.match(JSON.parse(stream.events[5]?.data ?? '{}'), { beeId: 'ticker', result: { shout: 'HI', length: 2 } })
    t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'], 'one hold, one capture')
    t.equal(await balanceOf(app, wallet.id), 0.75)
    const sent = fake.calls.at(-1)
    t.equal(sent?.headers.accept, 'text/event-stream', 'the upstream is asked for events')
    t.match(sent?.headers['x-apiary-signature'], /^v1=/, 'signed as every call')
  })

  await t.test('an event that breaks the eventSchema ends the stream with an error event, and voids the hold', async (t) => {
    fake.script = [{ event: 'data', data: '{"tick":1}' }, { data: '{"tick":"two"}' }, ...ticks(3)]
    const wallet = await createWallet(app, 1)
    const stream = await call(wallet.token)
    await stream.ended
    t.same(stream.events.map((event) => event.event), ['data', 'error'])
    t.match(JSON.parse(stream.events[1]?.data ?? '{}'), { error: 'Bad Gateway', code: 'BEE_EVENT_INVALID' })
    t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'])
    t.equal(await balanceOf(app, wallet.id), 1)
  })

  await t.test('an upstream that ends without a result, or before its first event, is voided', async (t) => {
    for (const script of [ticks(2).slice(0, 2), ticks(0)]) {
      fake.script = script
      const wallet = await createWallet(app, 1)
      const stream = await call(wallet.token)
      await stream.ended
      t.match(JSON.parse(stream.events.at(-1)?.data ?? '{}'), { code: 'BEE_UPSTREAM_ERROR' })
      t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'])
    }
  })

  await t.test('a client that goes away closes the upstream within a second, and its hold is voided; its place is given back', async (t) => {
    fake.script = [{ event: 'data', data: '{"tick":1}' }]
    fake.hang = true
    t.teardown(() => { fake.hang = false })
    const wallet = await createWallet(app, 1)
    const stream = await call(wallet.token)
    await stream.received(1)
    const full = await app.inject({ method: 'POST', url: '/api/bees/ticker/execute', headers: { accept: 'text/event-stream', 'x-registry-wallet-token': wallet.token }, payload: { text: 'hi' } })
    t.equal(full.statusCode, 503, 'STREAM_MAX_OPEN is 1')
    t.equal(full.json<{ code: string }>().code, 'STREAMS_FULL')
    const closedAt = Date.now()
    const before = fake.closedEarly.length
    stream.close()
    const waited = await within(1000, async () => fake.closedEarly.length > before)
    t.not(waited, null, 'the upstream connection was closed')
    t.ok((fake.closedEarly.at(-1) ?? Infinity) - closedAt < 1000, 'within a second')
    t.not(await within(2000, async () => (await kinds(app, wallet.id)).includes('void')), null, 'voided')
    t.equal(await balanceOf(app, wallet.id), 1)
    t.equal(app.openStreams.open, 0)
  })

  await t.test('a client that does not read: the stream ends after STREAM_BUFFER_BYTES wait unread, the upstream is closed, the hold voided', async (t) => {
    const pad = 'x'.repeat(60_000)
    fake.script = [...Array.from({ length: 400 }, (_, i) => ({ event: 'data', data: JSON.stringify({ tick: i + 1, pad }) })), ...ticks(1).slice(1)]
    fake.gapMs = 0
    t.teardown(() => { fake.gapMs = 10 })
    const wallet = await createWallet(app, 1)
    const { port } = app.server.address() as AddressInfo
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    socket.pause()
    const body = JSON.stringify({ text: 'hi' })
    socket.write('POST /api/bees/ticker/execute HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: text/event-stream\r\ncontent-type: application/json\r\n' +
      `x-registry-wallet-token: ${wallet.token}\r\ncontent-length: ${body.length}\r\n\r\n${body}`)
    const before = fake.closedEarly.length
    t.not(await within(20_000, async () => fake.closedEarly.length > before), null, 'the upstream was closed before its end')
    t.not(await within(5000, async () => (await kinds(app, wallet.id)).includes('void')), null, 'voided')
    t.equal(await balanceOf(app, wallet.id), 1)
    let read = ''
    socket.setEncoding('utf8')
    socket.on('data', (text: string) => { read = (read + text).slice(-2000) })
    socket.resume()
    t.not(await within(5000, async () => read.includes('STREAM_TOO_SLOW')), null, 'its last event says why')
    socket.destroy()
  })

  await t.test('a door that takes only the result (MCP, A2A: Executor.execute) gets the stream\'s result, charged once', async (t) => {
    fake.script = ticks(3)
    const wallet = await createWallet(app, 1)
    const outcome = await app.executor.execute({ beeId: 'ticker', input: { text: 'hi' }, walletToken: wallet.token, idempotencyKey: undefined, requestId: 'mcp-1', log: app.log })
    t.match(outcome, { ok: true, honey: { beeId: 'ticker', result: { shout: 'HI', length: 2 } } })
    t.equal(fake.calls.at(-1)?.headers.accept, 'text/event-stream')
    t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
  })

  await t.test('called without Accept: text/event-stream, a stream Bee is a run', async (t) => {
    fake.script = ticks(2)
    const wallet = await createWallet(app, 1)
    const started = await app.inject({ method: 'POST', url: '/api/bees/ticker/execute', headers: { prefer: 'respond-async', 'x-registry-wallet-token': wallet.token }, payload: { text: 'hi' } })
    t.equal(started.statusCode, 202)
  })
})

test('more open streams to one endpoint than the request pool has connections (64): each gets its events', async (t) => {
  const fake = await startFakeStreamBee()
  t.teardown(fake.close)
  fake.script = [{ event: 'data', data: '{"tick":1}' }]
  fake.hang = true
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('ticker', fake.url, { config: { primaryServices: ['ticks'], executionMode: 'stream', eventSchema } }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/bees/ticker/execute`
  const streams = await Promise.all(Array.from({ length: 80 }, async () => await openSse(url, { method: 'POST', body: { text: 'hi' } })))
  t.teardown(() => { for (const stream of streams) stream.close() })
  const all = Promise.all(streams.map(async (stream) => await stream.received(1)))
  t.equal(await Promise.race([all.then(() => 'all'), new Promise((resolve) => setTimeout(resolve, 10_000, 'waiting'))]), 'all', 'the 80 streams each got their first event')
  t.equal(app.openStreams.open, 80)
})
