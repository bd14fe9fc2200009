import fp from 'fastify-plugin'
import type { Config } from '../src/config.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

/** Exposes the validated configuration to every plugin. */
export default fp<{ config: Config }>(async (fastify, { config }) => {
  fastify.decorate('config', config)
}, { name: 'config' })
