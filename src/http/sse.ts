import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { OutgoingHttpHeaders } from 'node:http'
import { bodyOf, failure, type ApiError } from '../core/errors.js'
import { EVENT_STREAM } from '../core/publishing/event-stream.js'

/** Whether the request's Accept asks for Server-Sent Events. */
export const acceptsEventStream = (accept: string | undefined): boolean => accept?.toLowerCase().includes(EVENT_STREAM) === true

/**
 * Takes one of this instance's places for open streams (STREAM_MAX_OPEN) until the response closes, or refuses with
 * 503 STREAMS_FULL: a preHandler, before anything is held.
 */
export function takeStreamPlace (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const release = request.server.openStreams.take()
  if (release === null) {
    reply.header('retry-after', '1')
    done(failure('STREAMS_FULL', `This instance holds the ${request.server.config.STREAM_MAX_OPEN} streams it keeps open. Nothing ran or was charged; retry shortly.`))
    return
  }
  reply.raw.once('close', release)
  done()
}

/**
 * A Server-Sent Events answer on a hijacked reply (the headers set on the reply so far go with it): events, a comment
 * line every STREAM_HEARTBEAT_SECONDS, and a bound on what waits for a client that does not read (what the socket has not taken,
 * writableLength): past it, one last `error` event (STREAM_TOO_SLOW) and the end. `signal` aborts when the client is
 * gone, or was too slow, so the work feeding the stream stops.
 */
export class SseStream {
  readonly #raw: FastifyReply['raw']
  /** STREAM_BUFFER_BYTES: the most bytes left unread by the client before the stream gives up on it. */
  readonly #maxBufferedBytes: number
  readonly #stopped = new AbortController()
  readonly #heartbeat: NodeJS.Timeout
  #ended = false

  constructor (reply: FastifyReply) {
    const { STREAM_BUFFER_BYTES, STREAM_HEARTBEAT_SECONDS } = reply.server.config
    this.#maxBufferedBytes = STREAM_BUFFER_BYTES
    this.#raw = reply.raw
    reply.hijack()
    this.#raw.writeHead(200, {
      ...reply.getHeaders() as OutgoingHttpHeaders,
      'content-type': `${EVENT_STREAM}; charset=utf-8`,
      'cache-control': 'no-cache',
      // nginx would otherwise buffer the stream.
      'x-accel-buffering': 'no'
    })
    this.#raw.flushHeaders()
    this.#raw.once('close', () => { this.#stop('gone') })
    this.#heartbeat = setInterval(() => { this.#write(': heartbeat\n\n') }, STREAM_HEARTBEAT_SECONDS * 1000)
    this.#heartbeat.unref()
    // A client that left while the call was admitted and held: its 'close' came before this listener.
    if (this.#raw.destroyed) this.#stop('gone')
  }

  /** Aborts when the client went away or read too slowly. */
  get signal (): AbortSignal {
    return this.#stopped.signal
  }

  /** Sends one event (its data on one line: JSON has no raw newline); false when the stream has ended. */
  send (event: string, data: string, id?: number): boolean {
    return this.#write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${data}\n\n`)
  }

  /** Sends one unnamed event (EventSource's `message`): A2A's JSON-RPC streams name none. */
  message (data: string): boolean {
    return this.#write(`data: ${data}\n\n`)
  }

  /** Sends the error event an ended stream closes with, in the door's shape ({error, code, message}). */
  error (error: ApiError): boolean {
    return this.send('error', JSON.stringify(bodyOf(error)))
  }

  /** Ends the stream (idempotent). */
  end (): void {
    if (this.#ended) return
    this.#ended = true
    clearInterval(this.#heartbeat)
    this.#raw.end()
  }

  #write (frame: string): boolean {
    if (this.#ended || this.#stopped.signal.aborted) return false
    if (this.#raw.writableLength > this.#maxBufferedBytes) {
      this.#stop('slow')
      return false
    }
    this.#raw.write(frame)
    return true
  }

  #stop (why: 'gone' | 'slow'): void {
    if (this.#stopped.signal.aborted) return
    if (why === 'slow' && !this.#ended) {
      // What was buffered goes first; this last event is small, so the bound holds.
      this.#raw.write(`event: error\ndata: ${JSON.stringify(bodyOf(tooSlow(this.#maxBufferedBytes)))}\n\n`)
      this.end()
    }
    clearInterval(this.#heartbeat)
    this.#ended = true
    this.#stopped.abort(why)
  }
}

const tooSlow = (bytes: number) => failure('STREAM_TOO_SLOW', `The client did not read the stream: ${bytes} bytes waited unread, so it was ended. You were not charged.`)
