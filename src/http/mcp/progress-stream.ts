import type { JSONRPCResponse, ProgressNotificationParams } from '@modelcontextprotocol/server'
import type { FastifyReply } from 'fastify'
import { SseStream } from '../sse.js'
import type { ProgressChannel } from './progress.js'

/**
 * The Streamable HTTP answer of a 2025-era tools/call that asked for progress, as the SDK's transport answers in its
 * `auto` mode: JSON until the first notification; from it on, Server-Sent Events (each JSON-RPC message an `event:
 * message`), the response last. Opening takes one of this instance's places for open streams (STREAM_MAX_OPEN), as the
 * execute door's streams do; without one the notifications are left out (the spec lets a server send none) and the
 * answer stays JSON.
 */
export class ProgressStream implements ProgressChannel {
  readonly #reply: FastifyReply
  readonly #gone = new AbortController()
  /** Undefined until the first notification; null when there was no place for it. */
  #sse: SseStream | null | undefined

  constructor (reply: FastifyReply) {
    this.#reply = reply
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) this.#gone.abort()
    })
  }

  get signal (): AbortSignal {
    return this.#gone.signal
  }

  notify (params: ProgressNotificationParams): void {
    const sse = this.#open()
    if (sse !== null) sse.send('message', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params }))
  }

  /** Sends the response as the stream's last event, then ends it: true; false when no stream opened, and the answer is JSON. */
  answer (response: JSONRPCResponse): boolean {
    if (this.#sse === undefined || this.#sse === null) return false
    this.#sse.send('message', JSON.stringify(response))
    this.#sse.end()
    return true
  }

  #open (): SseStream | null {
    if (this.#sse !== undefined) return this.#sse
    const release = this.#reply.server.openStreams.take()
    if (release === null || this.#gone.signal.aborted) {
      release?.()
      this.#sse = null
      return null
    }
    this.#reply.raw.once('close', release)
    const sse = new SseStream(this.#reply)
    // A client that reads too slowly is as good as gone: the stream ended, its Bee is stopped.
    sse.signal.addEventListener('abort', () => { this.#gone.abort() }, { once: true })
    this.#sse = sse
    return sse
  }
}
