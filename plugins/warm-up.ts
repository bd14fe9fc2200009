import fp from 'fastify-plugin'
import { WarmUp } from '../src/core/warm-up.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** What loads after the server listens (the Bees' models); /ready waits for it (see src/core/warm-up.ts). */
    warmUp: WarmUp
  }
}

/**
 * The loads start once the port is open, not before: start-up is the time to a listening, healthy instance, and
 * the load balancer waits for /ready. An instance that never listens (tests through inject) starts them itself.
 */
export default fp(async (fastify) => {
  const warmUp = new WarmUp()
  fastify.decorate('warmUp', warmUp)
  fastify.addHook('onListen', async () => {
    const started = performance.now()
    warmUp.start().then(
      () => fastify.log.info({ ms: Math.round(performance.now() - started) }, 'models loaded: ready'),
      // /ready stays 503 and a call that needs the load tries it again; the operator learns why here.
      (error: unknown) => fastify.log.error({ err: error, pending: warmUp.pending() }, 'loading a model failed')
    )
  })
}, { name: 'warm-up' })
