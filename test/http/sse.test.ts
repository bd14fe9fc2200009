import Fastify from 'fastify'
import { request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'tap'
import { SseStream } from '../../src/http/sse.js'

test('a stream opened after its client left is stopped at once, so the work feeding it is not started for nobody', async (t) => {
  const app = Fastify()
  app.decorate('config', { STREAM_BUFFER_BYTES: 1024, STREAM_HEARTBEAT_SECONDS: 15 } as never)
  let clientGone: () => void = () => {}
  const gone = new Promise<void>((resolve) => { clientGone = resolve })
  const opened = new Promise<SseStream>((resolve) => {
    app.post('/stream', async (request, reply) => {
      // As a stream Bee's call does: admission and the hold come first, and the client may leave meanwhile.
      await gone
      await new Promise((resolve) => setTimeout(resolve, 50))
      resolve(new SseStream(reply))
      return reply
    })
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(async () => await app.close())
  const call = request({ port: (app.server.address() as AddressInfo).port, host: '127.0.0.1', method: 'POST', path: '/stream', headers: { 'content-type': 'application/json' } })
  call.on('error', () => {})
  call.end('{}')
  setTimeout(() => { call.destroy(); clientGone() }, 50)
  const stream = await opened
  t.ok(stream.signal.aborted, 'its signal has aborted')
  t.equal(stream.signal.reason, 'gone')
  t.equal(stream.send('data', '{}'), false, 'and nothing more is written')
})
