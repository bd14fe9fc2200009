import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Anonymous discovery answers may be reused briefly by caches in between; credentialed ones never are (see security-headers). */
export const CACHE_CONTROL = 'public, max-age=5'

export const etagOf = (body: string | Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`

/**
 * A rendered answer as the bytes sent, and its strong ETag. Bytes, not a string: a string is measured
 * (Content-Length) and encoded to UTF-8 again on every send; a Buffer is written as it is.
 */
export interface CachedText { body: Buffer, etag: string }

export function cachedText (text: string): CachedText {
  const body = Buffer.from(text)
  return { body, etag: etagOf(body) }
}

/**
 * A rendered answer with its ETag, or 304 when the client already holds it: what the handler returns for Fastify
 * to send. Returned, not sent: a handler that sends and then returns the reply hands Fastify a thenable, whose
 * promise settles only when the response has been written (as the execute route found, see docs/performance.md).
 */
export function sendCached (request: FastifyRequest, reply: FastifyReply, cached: CachedText, contentType: string): Buffer | null {
  reply.header('etag', cached.etag).header('cache-control', CACHE_CONTROL)
  if (request.headers['if-none-match'] === cached.etag) {
    reply.code(304)
    return null
  }
  // Already rendered: the bytes are sent as they are, with the content type named here.
  reply.type(contentType)
  return cached.body
}

/** How many base URLs one rendering is kept for: clients choose the Host, so the memo is bounded. */
const MAX_BASES = 8

/** Renderings of one thing for each base URL it was asked at, the least recently rendered dropped first. */
export class PerBaseUrl {
  readonly #entries = new Map<string, CachedText>()

  get (baseUrl: string, render: () => string): CachedText {
    let entry = this.#entries.get(baseUrl)
    if (entry === undefined) {
      entry = cachedText(render())
      if (this.#entries.size === MAX_BASES) this.#entries.delete(this.#entries.keys().next().value as string)
      this.#entries.set(baseUrl, entry)
    }
    return entry
  }
}
