import fp from 'fastify-plugin'
import { parseBuiltinLimits } from '../src/core/limits/builtin-limits.js'
import { Registry, type RegisteredBee } from '../src/core/registry.js'

declare module 'fastify' {
  interface FastifyInstance {
    registry: Registry
  }
  interface FastifyContextConfig {
    /** The Bee of a Bee's own execute route, fixed when the route is registered. */
    bee?: RegisteredBee
  }
}

/** The Bee registry shared by the Bees (which register themselves), discovery, and every door that executes. */
export default fp(async (fastify) => {
  const { limits } = parseBuiltinLimits(fastify.config.RATE_LIMIT_BUILTIN_BEES)
  const registry = new Registry(limits)
  fastify.decorate('registry', registry)
  // Only now are the built-in Bees known: a limit for one that is not would be a typo silently ignored.
  fastify.addHook('onReady', async () => {
    const unknown = [...limits.keys()].filter((id) => registry.get(id)?.remote !== false)
    if (unknown.length > 0) throw new Error(`RATE_LIMIT_BUILTIN_BEES names ${unknown.join(', ')}, which is not a built-in Bee`)
  })
}, { name: 'registry', dependencies: ['config'] })
