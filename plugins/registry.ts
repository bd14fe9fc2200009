import fp from 'fastify-plugin'
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
  fastify.decorate('registry', new Registry())
}, { name: 'registry' })
