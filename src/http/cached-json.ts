import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** A JSON answer serialized once, with the strong ETag of its bytes. */
export interface CachedJson {
  body: string
  etag: string
}

export function cachedJson (body: string): CachedJson {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` }
}

/** Sends a cached answer, or 304 when the client already holds these bytes (If-None-Match). */
export function sendCachedJson (request: FastifyRequest, reply: FastifyReply, { body, etag }: CachedJson, cacheControl: string) {
  reply.header('etag', etag).header('cache-control', cacheControl)
  if (request.headers['if-none-match'] === etag) return reply.code(304).send(null)
  // Already serialized: a string with a JSON content type is sent as it is.
  return reply.type('application/json; charset=utf-8').send(body as never)
}
