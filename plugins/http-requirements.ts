import type { IncomingMessage, ServerResponse } from 'node:http'
import fp from 'fastify-plugin'
import { bodyOf, failure } from '../src/core/errors.js'
import { baselineHeaders } from './security-headers.js'

/**
 * Two rules of HTTP/1.1 that Node's server enforces itself, with an empty body: an HTTP/1.1 request must
 * name its Host (RFC 9112 §3.2), and an Expect other than 100-continue cannot be met (RFC 9110 §10.1.1).
 * Here they answer in the standard `{error, code, message}` shape like every other refusal. The Host rule
 * needs the server option `http.requireHostHeader: false` (see serverOptions), or Node answers first.
 */
export default fp(async (fastify) => {
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      done(failure('HOST_REQUIRED', 'An HTTP/1.1 request must carry a Host header.'))
      return
    }
    done()
  })

  // Node emits this only for an Expect it does not handle (anything but 100-continue), and answers 417
  // itself unless someone listens. The request never reaches Fastify, so there is no request id.
  fastify.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const refused = failure('EXPECTATION_FAILED',
      `This service cannot meet "Expect: ${(request.headers.expect ?? '').slice(0, 100)}"; send the request without it, or with Expect: 100-continue.`)
    const body = JSON.stringify(bodyOf(refused))
    response.writeHead(refused.statusCode, {
      ...baselineHeaders,
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close'
    }).end(body)
  })
}, { name: 'http-requirements', dependencies: ['errors', 'request-id'] })
