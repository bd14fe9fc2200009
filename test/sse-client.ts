import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { createParser, type EventSourceMessage } from 'eventsource-parser'

export interface SseClient {
  status: number
  headers: IncomingHttpHeaders
  /** Every event received so far (comments, the heartbeats, are not events). */
  events: EventSourceMessage[]
  /** Resolves when the server ends the stream. */
  ended: Promise<void>
  /** Resolves once `count` events came. */
  received (count: number): Promise<void>
  /** Goes away: closes the connection. */
  close (): void
}

/** A client of a Server-Sent Events answer over a real connection, its events parsed by eventsource-parser. */
export async function openSse (url: string, options: { method?: string, headers?: Record<string, string>, body?: object } = {}): Promise<SseClient> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body)
  const req = httpRequest(url, {
    method: options.method ?? 'GET',
    headers: { accept: 'text/event-stream', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers }
  })
  req.end(body)
  const response = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
    req.once('response', resolve)
    req.once('error', reject)
  })
  const events: EventSourceMessage[] = []
  const waiting = new Set<() => void>()
  const parser = createParser({ onEvent: (event) => { events.push(event); for (const check of waiting) check() } })
  response.setEncoding('utf8')
  response.on('data', (text: string) => { parser.feed(text) })
  const ended = new Promise<void>((resolve) => {
    response.once('end', resolve)
    response.once('close', resolve)
  })
  return {
    status: response.statusCode ?? 0,
    headers: response.headers,
    events,
    ended,
    received: async (count) => await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (events.length < count) return
        waiting.delete(check)
        resolve()
      }
      waiting.add(check)
      check()
      ended.then(() => { if (events.length < count) reject(new Error(`the stream ended after ${events.length} events`)) }, reject)
    }),
    close: () => { req.destroy() }
  }
}
