import type { FastifyReply, FastifyRequest } from 'fastify'
import { LogController } from 'fastify'
import fp from 'fastify-plugin'

/**
 * One log line per request, written when it completes, in place of Fastify's two (incoming and
 * completed): the same facts at half the logging cost on the hot path. Set as the server's
 * logController (see serverOptions).
 */
export class OneLineRequestLog extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime }
    if (error !== null && error !== undefined) reply.log.error({ ...line, err: error }, 'request errored')
    else reply.log.info(line, 'request completed')
  }
}

/** Echoes the request id (taken from the gateway's X-Request-Id, or generated) so clients can quote it. */
export default fp(async (fastify) => {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
}, { name: 'request-id' })
