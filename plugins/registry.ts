import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { Registry, type RegisteredBee } from '../src/core/registry.js'

declare module 'fastify' {
  interface FastifyInstance {
    registry: Registry
  }
  interface FastifyRequest {
    /** The Bee of a request to the generic execute route, resolved from the registry. */
    bee: RegisteredBee | null
  }
  interface FastifyContextConfig {
    /** The Bee of a Bee's own execute route, fixed when the route is registered. */
    bee?: RegisteredBee
  }
}

/** The Bee an execute request is for: from its route's config, else as resolved at request time. */
export function beeOf (request: FastifyRequest): RegisteredBee | null {
  return request.routeOptions.config.bee ?? request.bee
}

/** The Bee registry shared by the Bees (which register themselves) and the discovery routes. */
export default fp(async (fastify) => {
  fastify.decorate('registry', new Registry())
  fastify.decorateRequest('bee', null)
}, { name: 'registry' })
