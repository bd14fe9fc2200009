import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { test } from 'tap'
import { backends } from '../../databases.js'
import { build, createWallet } from '../../helper.js'
import { startFakeStreamBee, ticks } from '../../fake-stream-bee.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { openSse } from '../../sse-client.js'
import { within } from '../../within.js'

const eventSchema = { type: 'object', properties: { tick: { type: 'integer', description: 'Which tick.' } }, required: ['tick'] }

/** The events of a whole event-stream answer. */
function eventsOf (text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = []
  createParser({ onEvent: (event) => events.push(event) }).feed(text)
  return events
}

const names = (events: EventSourceMessage[]) => events.map((event) => `${event.event ?? ''}${event.id === undefined ? '' : `#${event.id}`}`)

async function listening (app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
}

for (const backend of backends) {
  test(`a run's events on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const fake = await startFakeStreamBee()
    t.teardown(fake.close)
    const env = { DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1', RUN_POLL_MS: '50' }
    const app = await build(t, { env })
    const publisher = await createPublisher(app)
    await publish(app, publisher.headers, beeBody('ticker', fake.url, {
      pricing: { type: 'pay-per-use', costPerCall: 0.25 },
      config: { primaryServices: ['ticks'], executionMode: 'stream', eventSchema }
    }))
    let release = () => {}
    /** The upstream holds its events until `release()`, which may be called only once it was called (`called()`). */
    const gated = () => {
      const before = fake.calls.length
      fake.beforeEvents = async () => await new Promise<void>((resolve) => { release = resolve })
      return async () => await within(10_000, async () => fake.calls.length > before)
    }
    t.teardown(() => { release() })
    const start = async (on: FastifyInstance, token: string) => {
      const started = await on.inject({ method: 'POST', url: '/api/bees/ticker/execute', headers: { prefer: 'respond-async', 'x-registry-wallet-token': token }, payload: { text: 'hi' } })
      return started.json<{ id: string }>().id
    }

    await t.test('a stream Bee\'s run: its events, then its honey; resumed after Last-Event-ID; only for its caller', async (t) => {
      fake.beforeEvents = async () => {}
      fake.script = [{ event: 'progress', data: '{"progress":0.5}' }, ...ticks(4)]
      const wallet = await createWallet(app, 1)
      const headers = { 'x-registry-wallet-token': wallet.token }
      const id = await start(app, wallet.token)
      t.not(await within(5000, async () => (await app.inject({ url: `/api/runs/${id}`, headers })).json<{ status: string }>().status === 'succeeded'), null)
      const all = await app.inject({ url: `/api/runs/${id}/events`, headers })
      t.equal(all.statusCode, 200)
      t.match(all.headers['content-type'], /^text\/event-stream/)
      const events = eventsOf(all.body)
      t.same(names(events), ['progress#1', 'data#2', 'data#3', 'data#4', 'data#5', 'honey'])
      t.same(JSON.parse(events[1]?.data ?? ''), { tick: 1 })
      t.match(JSON.parse(events[5]?.data ?? ''), { beeId: 'ticker', result: { shout: 'HI' } })
      t.equal((await app.inject({ url: `/api/runs/${id}`, headers })).json<{ progress: number }>().progress, 1)
      const resumed = await app.inject({ url: `/api/runs/${id}/events`, headers: { ...headers, 'last-event-id': '3' } })
      t.same(names(eventsOf(resumed.body)), ['data#4', 'data#5', 'honey'], 'after the last id seen')
      const stranger = await createWallet(app, 1)
      t.equal((await app.inject({ url: `/api/runs/${id}/events`, headers: { 'x-registry-wallet-token': stranger.token } })).statusCode, 404)
      t.equal((await app.inject({ url: `/api/runs/${id}/events` })).statusCode, 404)
      t.equal((await app.inject({ url: `/api/runs/${id}/events`, headers: { ...headers, 'last-event-id': 'x' } })).statusCode, 400)
    })

    await t.test('followed live; a run that fails on an invalid event ends with its end event', async (t) => {
      const called = gated()
      fake.script = [{ event: 'data', data: '{"tick":1}' }, { event: 'data', data: '{"tock":2}' }]
      const wallet = await createWallet(app, 1)
      const id = await start(app, wallet.token)
      const follower = await openSse(`${await listening(app)}/api/runs/${id}/events`, { headers: { 'x-registry-wallet-token': wallet.token } })
      t.not(await called(), null)
      release()
      await follower.ended
      t.same(names(follower.events), ['data#1', 'end'])
      t.match(JSON.parse(follower.events[1]?.data ?? ''), { id, status: 'failed', error: { code: 'BEE_EVENT_INVALID' } })
    })

    await t.test('two instances: a run started on A is followed on B', { skip: backend.name === 'sqlite' ? 'one instance on SQLite' : false }, async (t) => {
      const other = await build(t, { env })
      const [onA, onB] = [`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, await listening(other)]
      const called = gated()
      fake.gapMs = 20
      fake.script = ticks(5)
      const wallet = await createWallet(app, 1)
      const headers = { 'x-registry-wallet-token': wallet.token }
      const id = await start(app, wallet.token)
      const followers = [await openSse(`${onA}/api/runs/${id}/events`, { headers }), await openSse(`${onB}/api/runs/${id}/events`, { headers })]
      t.not(await called(), null)
      const released = Date.now()
      release()
      await Promise.all(followers.map(async (follower) => await follower.ended))
      // Readers look at their run every 5 s without news: both ending sooner were told, the other instance's through NOTIFY.
      t.ok(Date.now() - released < 3000, `both followers ended within 3 s (${Date.now() - released} ms)`)
      for (const follower of followers) t.same(names(follower.events), ['data#1', 'data#2', 'data#3', 'data#4', 'data#5', 'honey'])
    })
  })
}
