import { once } from 'node:events'
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'tap'
import { Agent, request } from 'undici'
import { adminHeaders } from '../helper.js'
import { beeBody } from '../publishing-helper.js'
import { sqliteBackend } from '../databases.js'
import { startServer } from '../server-process.js'

/** A publisher's Bee that answers each call after `delayMs`. */
async function slowBee (delayMs: number) {
  const pending = new Set<ServerResponse>()
  const server = createServer((incoming, response) => {
    incoming.resume()
    incoming.on('end', () => {
      pending.add(response)
      setTimeout(() => {
        pending.delete(response)
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"shout":"HI","length":2}')
      }, delayMs)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/shout`,
    close: () => {
      for (const response of pending) response.destroy()
      server.closeAllConnections()
      server.close()
    }
  }
}

test('SIGTERM behind a keep-alive client: idle connections close, in-flight requests finish, exit 0 at once', async (t) => {
  const bee = await slowBee(800)
  t.teardown(bee.close)
  const database = sqliteBackend()
  t.teardown(database.drop)
  const server = await startServer({ DATABASE_URL: database.url, EGRESS_ALLOWLIST: '127.0.0.1', LOG_LEVEL: 'info' })
  t.teardown(() => server.stop('SIGKILL'))

  // A gateway's pool: keep-alive connections that stay open between requests.
  const pool = new Agent({ keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000, connections: 4 })
  t.teardown(() => pool.destroy())
  const call = async (path: string, method: 'GET' | 'POST' = 'GET', body?: unknown, headers: Record<string, string> = {}) => {
    const response = await request(`${server.url}${path}`, {
      method,
      dispatcher: pool,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.statusCode, headers: response.headers, body: await response.body.json() as Record<string, unknown> }
  }
  const publisher = await call('/api/publishers', 'POST', { email: 'slow@example.com', name: 'Slow' }, adminHeaders)
  const published = await call('/api/bees', 'POST', beeBody('slowpoke', bee.url), { authorization: `Bearer ${String(publisher.body.key)}` })
  t.equal(published.status, 201)
  t.equal((await call('/health')).status, 200, 'the pool now holds an idle keep-alive connection')

  const inFlight = call('/api/bees/slowpoke/execute', 'POST', { text: 'hi' })
  await new Promise((resolve) => setTimeout(resolve, 200))
  const signalled = Date.now()
  const exited = once(server.child, 'exit') as Promise<[number | null, string | null]>
  server.child.kill('SIGTERM')

  const answer = await inFlight
  t.equal(answer.status, 200, 'the in-flight request is answered')
  t.match(answer.body, { beeId: 'slowpoke', result: { shout: 'HI' } })
  t.equal(answer.headers.connection, 'close', 'and told the connection is closing')
  const [code] = await exited
  t.equal(code, 0, 'a clean exit')
  t.ok(Date.now() - signalled < 3000, `well inside the 10 s grace period (${Date.now() - signalled} ms)`)
  const errors = server.output().split('\n').filter((line) => line.startsWith('{') && (JSON.parse(line) as { level: number }).level >= 50)
  t.same(errors, [], 'nothing logged at error level or above')
})
