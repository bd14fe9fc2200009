import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { test } from 'tap'
import { freePort } from '../free-port.js'
import { build, createWallet } from '../helper.js'
import { beeBody, createPublisher, publish } from '../publishing-helper.js'
import { openSse } from '../sse-client.js'

test('examples/tick-bee.mjs, published as a stream Bee, streams its ticks through Apiary', async (t) => {
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  const port = await freePort()
  const eventSchema = { type: 'object', properties: { tick: { type: 'integer', description: 'Which tick.' } }, required: ['tick'] }
  const { signingSecret } = await publish(app, publisher.headers, beeBody('ticker', `http://127.0.0.1:${port}/ticks`, {
    pricing: { type: 'pay-per-use', costPerCall: 0.25 },
    config: { primaryServices: ['ticks'], executionMode: 'stream', eventSchema }
  }))
  const bee = spawn(process.execPath, ['examples/tick-bee.mjs'], {
    env: { ...process.env, APIARY_SIGNING_SECRET: signingSecret, PORT: String(port), TICKS: '3', TICK_MS: '10' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  t.teardown(() => { bee.kill() })
  await once(bee.stdout, 'data')
  await app.listen({ port: 0, host: '127.0.0.1' })
  const wallet = await createWallet(app, 1)
  const stream = await openSse(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/bees/ticker/execute`, {
    method: 'POST', headers: { 'x-registry-wallet-token': wallet.token }, body: { text: 'tick' }
  })
  await stream.ended
  t.same(stream.events.map((event) => event.event), ['progress', 'data', 'progress', 'data', 'progress', 'data', 'honey'])
  t.match(JSON.parse(stream.events.at(-1)?.data ?? '{}'), { beeId: 'ticker', result: { shout: 'TICK', length: 4 } })
})
