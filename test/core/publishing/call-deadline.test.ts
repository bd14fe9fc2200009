import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { test, type Test } from 'tap'
import * as undici from 'undici'
import { CallDeadline } from '../../../src/core/publishing/call-deadline.js'

/** A server on 127.0.0.1 that never answers: only the deadline ends a request to it. */
async function silentServer (t: Test): Promise<string> {
  const server: Server = createServer(() => {})
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const { port } = server.address() as { port: number }
  return `http://127.0.0.1:${port}/`
}

test('undici ends a request when its time limit passes, and the deadline says it expired', async (t) => {
  const url = await silentServer(t)
  const deadline = new CallDeadline(50, undefined)
  const started = performance.now()
  await t.rejects(undici.request(url, { signal: deadline }))
  deadline.clear()
  t.ok(performance.now() - started < 5000)
  t.ok(deadline.expired)
  t.ok(deadline.aborted)
})

test('a cancelled run ends its request before the limit: aborted, not expired', async (t) => {
  const url = await silentServer(t)
  const run = new AbortController()
  const deadline = new CallDeadline(60_000, run.signal)
  setTimeout(() => { run.abort() }, 20)
  await t.rejects(undici.request(url, { signal: deadline }))
  deadline.clear()
  t.ok(deadline.aborted)
  t.notOk(deadline.expired)
})

test('a run cancelled already refuses the request at once', async (t) => {
  const run = new AbortController()
  run.abort()
  const deadline = new CallDeadline(60_000, run.signal)
  t.ok(deadline.aborted)
  await t.rejects(undici.request('http://127.0.0.1:9/', { signal: deadline }))
  deadline.clear()
  t.notOk(deadline.expired)
})

test('cleared, it neither expires nor hears the run any more', async (t) => {
  const run = new AbortController()
  const deadline = new CallDeadline(10, run.signal)
  deadline.clear()
  run.abort()
  await new Promise((resolve) => setTimeout(resolve, 30))
  t.notOk(deadline.aborted)
  t.notOk(deadline.expired)
})
