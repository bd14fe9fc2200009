import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import { serveOnLoopback } from './fake-bee.js'

/** One event the fake sends: its name (none: an unnamed, data, event) and its data line. */
export interface ScriptedEvent { event?: string, data: string }

export interface FakeStreamBee {
  url: string
  /** What the next call streams, event by event, `gapMs` apart; then, unless `hang`, the end of the answer. */
  script: ScriptedEvent[]
  gapMs: number
  /** Keep the answer open after the script, as a long stream does. */
  hang: boolean
  /** Awaited before the first event: lets a test act while the call is in flight. */
  beforeEvents: () => Promise<void>
  calls: Array<{ headers: IncomingHttpHeaders, body: string }>
  /** When (Date.now()) each call's connection closed before its answer ended: the client went away. */
  closedEarly: number[]
  close (): Promise<void>
}

/** A stream Bee's result (shoutOutput's shape) after `n` tick events. */
export const ticks = (n: number, result = '{"shout":"HI","length":2}'): ScriptedEvent[] => [
  ...Array.from({ length: n }, (_, i) => ({ event: 'data', data: JSON.stringify({ tick: i + 1 }) })),
  { event: 'result', data: result }
]

/**
 * A publisher's stream Bee on 127.0.0.1, speaking Server-Sent Events as docs/publishers.md says: it answers the call
 * with `text/event-stream` and the events of its script.
 */
export async function startFakeStreamBee (): Promise<FakeStreamBee> {
  const open = new Set<ServerResponse>()
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      fake.calls.push({ headers: request.headers, body: Buffer.concat(chunks).toString() })
      const { script, gapMs, hang } = fake
      open.add(response)
      response.on('close', () => {
        open.delete(response)
        if (!response.writableEnded) fake.closedEarly.push(Date.now())
      })
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      response.flushHeaders()
      void (async () => {
        await fake.beforeEvents()
        for (const { event, data } of script) {
          if (response.destroyed) return
          response.write(`${event === undefined ? '' : `event: ${event}\n`}data: ${data}\n\n`)
          await new Promise((resolve) => setTimeout(resolve, gapMs))
        }
        if (!hang) response.end()
      })()
    })
  })
  const fake: FakeStreamBee = {
    url: '',
    script: ticks(5),
    gapMs: 10,
    hang: false,
    beforeEvents: async () => {},
    calls: [],
    closedEarly: [],
    close: async () => {}
  }
  const served = await serveOnLoopback(server, open)
  fake.url = `${served.origin}/ticks`
  fake.close = served.close
  return fake
}
