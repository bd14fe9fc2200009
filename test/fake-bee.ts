import { createHmac } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeBeeMode = 'ok' | 'slow' | 'error' | 'invalid-output' | 'not-json' | 'oversize' | 'oversize-chunked' | 'not-object' | 'too-deep' | 'far-too-deep'

export interface FakeBee {
  url: string
  mode: FakeBeeMode
  /** What each call received. */
  calls: Array<{ headers: IncomingHttpHeaders, body: string }>
  /** Headers the fake adds to a successful answer. */
  replyHeaders: Record<string, string>
  /** Awaited before a successful answer is sent: lets a test act while the call is in flight. */
  beforeAnswer: () => Promise<void>
  close (): Promise<void>
}

/** Verifies Apiary's signature the way docs/publishers.md tells publishers to. */
export function signatureIsValid (secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const timestamp = String(headers['x-apiary-timestamp'])
  const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
  return headers['x-apiary-signature'] === expected
}

/**
 * A publisher's Bee on 127.0.0.1: it takes the JSON input Apiary forwards and answers with
 * `{ "shout": <text in capitals>, "length": <its length> }`, or misbehaves as its mode says.
 */
export async function startFakeBee (): Promise<FakeBee> {
  const hanging = new Set<ServerResponse>()
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString()
      fake.calls.push({ headers: request.headers, body })
      const json = (status: number, payload: string, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers })
        response.end(payload)
      }
      const text = String((JSON.parse(body) as { text?: unknown }).text ?? '')
      switch (fake.mode) {
        case 'slow': hanging.add(response); return
        case 'error': return json(503, '{"error":"overloaded"}')
        case 'invalid-output': return json(200, JSON.stringify({ shout: 42 }))
        case 'not-json': return json(200, '<html>oops</html>')
        case 'oversize': return json(200, JSON.stringify({ shout: 'A'.repeat(2 * 1024 * 1024), length: 1 }))
        // The same without a Content-Length: its size is known only as it comes.
        case 'oversize-chunked':
          response.writeHead(200, { 'content-type': 'application/json' }).write(`{"shout":"${'A'.repeat(2 * 1024 * 1024)}`)
          response.end('","length":1}')
          return
        case 'not-object': return json(200, JSON.stringify(text))
        // Valid JSON well under the size cap, nested past what a recursive stringify can take.
        // Past the 64 levels Apiary serves; far past it, deep enough to overflow a recursive parser's stack.
        case 'too-deep': return json(200, `{"shout":"A","length":1,"extra":${'['.repeat(100)}${']'.repeat(100)}}`)
        case 'far-too-deep': return json(200, `{"shout":"A","length":1,"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)
        default:
          fake.beforeAnswer().then(
            () => json(200, JSON.stringify({ shout: text.toUpperCase(), length: text.length }), fake.replyHeaders),
            () => json(500, '{"error":"beforeAnswer failed"}'))
      }
    })
  })
  const fake: FakeBee = {
    url: '',
    mode: 'ok',
    calls: [],
    replyHeaders: {},
    beforeAnswer: async () => {},
    close: async () => {}
  }
  const served = await serveOnLoopback(server, hanging)
  fake.url = `${served.origin}/shout`
  fake.close = served.close
  return fake
}

/** Starts a fake's server on 127.0.0.1; its origin, and what closes it, the answers still open (`open`) included. */
export async function serveOnLoopback (server: Server, open: Set<ServerResponse>): Promise<{ origin: string, close: () => Promise<void> }> {
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const response of open) response.destroy()
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    }
  }
}
