import { createServer, type Server } from 'node:http'
import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from 'typebox'
import { bodyOf, failure } from '../src/core/errors.js'
import { secretsMatch } from '../src/core/ledger/secrets.js'
import { bearerOf } from '../src/http/bearer.js'
import { ServiceMetrics } from '../src/http/metrics/service-metrics.js'
import { NO_HOST, refusal } from '../src/http/refusals.js'
import { SERVED_UNDER_PRESSURE } from './load-shedding.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** Prometheus metrics; null when no way to read them is configured (METRICS_TOKEN, METRICS_PORT), and then nothing is counted. */
    metrics: ServiceMetrics | null
  }
}

const NOT_FOUND = failure('NOT_FOUND', 'This port serves GET /metrics only.')
const METRICS_FAILED = failure('METRICS_FAILED', 'The metrics could not be collected.')

/**
 * /metrics in the Prometheus text format. Never open by accident: off unless the operator sets a token
 * (then on the service's port, for that bearer only) or a port of its own (bound to METRICS_HOST,
 * 127.0.0.1 by default, for a scraper on a private network). Off, it costs nothing: no hook, no counting.
 */
export default fp(async (fastify) => {
  const { config, ledger } = fastify
  if (config.METRICS_TOKEN === undefined && config.METRICS_PORT === undefined) {
    fastify.decorate('metrics', null)
    return
  }
  const metrics = new ServiceMetrics(() => ledger.preparations.countByStatus())
  fastify.decorate('metrics', metrics)
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
    done()
  })

  const token = config.METRICS_TOKEN
  if (token !== undefined) {
    const authorized = async (request: FastifyRequest) => {
      const presented = bearerOf(request)
      if (presented === undefined || !secretsMatch(presented, token)) {
        throw failure('UNAUTHORIZED', 'Send the operator\'s METRICS_TOKEN as Authorization: Bearer <token>.')
      }
    }
    fastify.get('/metrics', {
      schema: {
        tags: ['operations'],
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description: 'Requests by route and status, Bee calls and latency, ledger holds, captures, voids and 402s, replays, ' +
          'rate-limited requests, the preparation queue, event-loop lag and heap, in the Prometheus text format.',
        security: [{ metricsToken: [] }],
        response: {
          200: { description: 'The Prometheus text exposition format.', content: { 'text/plain': { schema: Type.String({ description: 'Metrics.' }) } } },
          400: NO_HOST,
          401: refusal('Missing or wrong METRICS_TOKEN.', ['UNAUTHORIZED'])
        }
      },
      // A scrape is the operator's; it is never limited, and it still answers under pressure, when it matters most.
      config: { rateLimit: false, ...SERVED_UNDER_PRESSURE },
      logLevel: 'warn',
      onRequest: authorized
    }, async (request, reply) => {
      return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics())
    })
  }

  const port = config.METRICS_PORT
  if (port !== undefined) {
    const server: Server = createServer((request, response) => {
      if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
        response.writeHead(NOT_FOUND.statusCode, { 'content-type': 'application/json' }).end(JSON.stringify(bodyOf(NOT_FOUND)))
        return
      }
      metrics.registry.metrics().then((body) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body)
      }, (error: unknown) => {
        fastify.log.error({ err: error }, 'metrics scrape failed')
        response.writeHead(METRICS_FAILED.statusCode, { 'content-type': 'application/json' }).end(JSON.stringify(bodyOf(METRICS_FAILED)))
      })
    })
    fastify.addHook('onReady', async () => {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, config.METRICS_HOST, () => { resolve() })
      })
    })
    fastify.addHook('onClose', async () => {
      if (server.listening) await new Promise((resolve) => server.close(resolve))
    })
  }
}, { name: 'metrics', dependencies: ['config', 'ledger', 'load-shedding'] })
