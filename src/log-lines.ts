import type pino from 'pino'

type Destination = ReturnType<typeof pino.destination>

/**
 * Where the JSON log lines go: pino's asynchronous destination (sonic-boom) in its buffer mode, each line encoded to
 * UTF-8 once, here. In its default (utf8) mode sonic-boom measures the UTF-8 length of all the text queued behind the
 * write in flight on every line it takes, and encodes each finished write to a Buffer again; under load, with tens of
 * lines queued at a time, that cost grows with the queue: the access log line cost detail about a fifth of its
 * throughput, and this way about half as much (docs/performance.md, "A third AMD EPYC host").
 *
 * pino and Fastify use a destination's write, flush and flushSync; the destination pino built keeps its own exit
 * handler (the lines still queued are written before the process exits) and its broken-pipe guard, which replaces its
 * write, so its methods are looked up on each call.
 */
export class LineEncoder {
  readonly #destination: Destination

  constructor (destination: Destination) {
    this.#destination = destination
  }

  write (line: string): boolean {
    // sonic-boom's types name only strings; in buffer mode it takes Buffers.
    return this.#destination.write(Buffer.from(line) as unknown as string)
  }

  flush (callback?: (error?: Error) => unknown): void {
    this.#destination.flush(callback)
  }

  flushSync (): void {
    this.#destination.flushSync()
  }
}
