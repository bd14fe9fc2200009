import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { LogController } from 'fastify'
import fp from 'fastify-plugin'
import pino from 'pino'

/** What a gateway's request id looks like: a UUID, a hex trace id, `Root=1-…` and the like, not 15 kB of anything. */
const GATEWAY_REQUEST_ID = /^[\w.:/+=-]{1,128}$/

/**
 * Server option genReqId: the gateway's X-Request-Id when it has the shape of one, else a fresh UUID.
 * The id is echoed, logged and stored in the journal, so a client must not choose its size or content.
 */
export function requestIdOf (request: IncomingMessage): string {
  const offered = request.headers['x-request-id']
  return typeof offered === 'string' && GATEWAY_REQUEST_ID.test(offered) ? offered : randomUUID()
}

/** Query parameters whose name says they hold a credential. */
const SECRET_NAME = /token|key|secret|passw|pwd|wallet|signature|auth|credential|session|cookie|bearer/i
/** Values shaped like this service's own secrets (src/core/ledger/secrets.ts), whatever their parameter is called. */
const SECRET_VALUE = /^(awt|apk|bsk)_/

function decoded (text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '))
  } catch {
    return text
  }
}

/**
 * The URL as it may be logged: the value of every query parameter that looks like a credential is
 * replaced by [redacted]. No route here takes a secret in the query, but clients put tokens there
 * anyway, and a log line must not keep them.
 */
export function loggedUrl (url: string): string {
  const start = url.indexOf('?')
  if (start === -1) return url
  const query = url.slice(start + 1).split('&').map((pair) => {
    const equals = pair.indexOf('=')
    const name = decoded(equals === -1 ? pair : pair.slice(0, equals))
    const value = equals === -1 ? '' : decoded(pair.slice(equals + 1))
    if (SECRET_NAME.test(name) || SECRET_VALUE.test(value) || SECRET_VALUE.test(name)) {
      return equals === -1 ? '[redacted]' : `${pair.slice(0, equals)}=[redacted]`
    }
    return pair
  })
  return `${url.slice(0, start)}?${query.join('&')}`
}

/** What pino keeps of a logger: its bindings, already written as JSON members, and where its lines go. */
interface PinoInternals {
  [pino.symbols.chindingsSym]: string
  [pino.symbols.streamSym]: { write (line: string): unknown }
}

/**
 * One log line per request, written when it completes, in place of Fastify's two (incoming and
 * completed): the same facts at half the logging cost on the hot path. Set as the server's
 * logController (see serverOptions).
 *
 * A completed request's line is the line pino would write for `log.info({ method, url, statusCode, responseTime },
 * 'request completed')`, byte for byte (level, time, the logger's bindings with the request id, the fields, the
 * message), built here as one string and handed to the logger's own destination. pino's general path (its level
 * method, the serializer and redaction checks of every field) cost about a quarter of discovery's throughput on
 * this service (docs/performance.md, "The rate limit and the access log line"); these four fields need none of it: the method is a
 * token Node has checked, the URL is redacted by loggedUrl, and the numbers are numbers. Errors still go through
 * pino, with its error serializer.
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error !== null && error !== undefined) {
      reply.log.error({ method: request.method, url: loggedUrl(request.url), statusCode: reply.statusCode, responseTime: reply.elapsedTime, err: error },
        'request errored')
      return
    }
    // Without a pino logger (logger: false) there is nothing to write to.
    if ((reply.log as Partial<pino.Logger>).isLevelEnabled?.('info') !== true) return
    const log = reply.log as unknown as PinoInternals
    log[pino.symbols.streamSym].write(`{"level":30,"time":${Date.now()}${log[pino.symbols.chindingsSym]},"method":${JSON.stringify(request.method)},` +
      `"url":${JSON.stringify(loggedUrl(request.url))},"statusCode":${reply.statusCode},"responseTime":${reply.elapsedTime},"msg":"request completed"}\n`)
  }
}

/** Echoes the request id (see requestIdOf) so clients can quote it. */
export default fp(async (fastify) => {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
}, { name: 'request-id' })
