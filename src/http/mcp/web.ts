import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Headers about the connection or the bytes on the wire: the web Request carries the body already parsed and decoded. */
const wireHeaders = new Set(['host', 'connection', 'keep-alive', 'content-length', 'content-encoding', 'transfer-encoding', 'expect', 'upgrade'])

/**
 * The request as the SDK's web-standard face takes it, with the message Fastify parsed (through the
 * app's JSON parser and its checks) as its body. The URL's origin is a placeholder: only the path and
 * the headers mean anything to the SDK, and a Host header is the client's to garble.
 */
export function toWebRequest (request: FastifyRequest, message: unknown): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && !wireHeaders.has(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
  }
  return new Request(new URL(request.url, 'http://apiary.invalid'), { method: request.method, headers, body: JSON.stringify(message) })
}

/** Sends the SDK's web Response through Fastify (so the app's hooks, headers and access log still apply). */
export async function sendWebResponse (reply: FastifyReply, response: Response): Promise<FastifyReply> {
  reply.code(response.status)
  response.headers.forEach((value, name) => {
    if (name !== 'content-length') reply.header(name, value)
  })
  if (response.body === null) return await reply.send()
  // A subscriptions/listen stream stays open; every other answer is one JSON body.
  if (response.headers.get('content-type')?.startsWith('text/event-stream') === true) {
    return await reply.send(Readable.fromWeb(response.body as never))
  }
  return await reply.send(await response.text())
}
