import fp from 'fastify-plugin'
import { WarmUp } from '../src/core/warm-up.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** What loads after the server listens (the Bees' models); /ready waits for it (see src/core/warm-up.ts). */
    warmUp: WarmUp
  }
}

/**
 * How long after the port opens the loads start. They hold the event loop for a few hundred milliseconds, and with the
 * bundle's code already compiled (V8's code cache, scripts/bundle-start.mjs) nothing else makes them wait: a probe
 * that came a few milliseconds after the port opened waited for all of them, so /health answered only once /ready
 * could. This much lets the first probes in; /ready comes as much later.
 */
const LOADS_AFTER_LISTEN_MS = 100

/**
 * The loads start once the port is open, not before: start-up is the time to a listening, healthy instance, and
 * the load balancer waits for /ready. An instance that never listens (tests through inject) starts them itself.
 */
export default fp(async (fastify) => {
  const warmUp = new WarmUp()
  fastify.decorate('warmUp', warmUp)
  let loads: NodeJS.Timeout | undefined
  fastify.addHook('onListen', async () => {
    const started = performance.now()
    loads = setTimeout(() => warmUp.start().then(
      () => fastify.log.info({ ms: Math.round(performance.now() - started) }, 'models loaded: ready'),
      // /ready stays 503 and a call that needs the load tries it again; the operator learns why here.
      (error: unknown) => fastify.log.error({ err: error, pending: warmUp.pending() }, 'loading a model failed')
    ), LOADS_AFTER_LISTEN_MS)
  })
  fastify.addHook('onClose', async () => clearTimeout(loads))
}, { name: 'warm-up' })
