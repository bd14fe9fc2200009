import fp from 'fastify-plugin'
import { parseBuiltinLimits } from '../src/core/limits/builtin-limits.js'
import { parseBuiltinPlans } from '../src/core/subscriptions/builtin-plans.js'
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

/** The Bee registry shared by the built-in Bees (which register themselves), the catalog sync (which loads published ones), and every door that executes. */
export default fp(async (fastify) => {
  const { limits } = parseBuiltinLimits(fastify.config.RATE_LIMIT_BUILTIN_BEES)
  const { plans } = parseBuiltinPlans(fastify.config.SUBSCRIPTION_BUILTIN_BEES)
  const registry = new Registry(limits, plans, fastify.config.CATALOG_CACHE_SIZE)
  fastify.decorate('registry', registry)
  // Only now are the built-in Bees known: a limit or plan for one that is not would be a typo silently ignored.
  fastify.addHook('onReady', async () => {
    for (const [name, ids] of [['RATE_LIMIT_BUILTIN_BEES', limits.keys()], ['SUBSCRIPTION_BUILTIN_BEES', plans.keys()]] as const) {
      const unknown = [...ids].filter((id) => registry.builtin(id) === undefined)
      if (unknown.length > 0) throw new Error(`${name} names ${unknown.join(', ')}, which is not a built-in Bee`)
    }
  })
}, { name: 'registry', dependencies: ['config'] })
