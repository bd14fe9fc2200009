import compress from '@fastify/compress'
import fp from 'fastify-plugin'

/**
 * Response compression (br, gzip, deflate, as the client accepts) on the routes that ask for it with the
 * route option `compress`: large answers fetched whole, such as the OpenAPI document. Off elsewhere: the
 * hot answers (discovery, detail, execute) are small, and compressing each one would cost more time than
 * it saves on the wire. Request bodies are decoded by plugins/content-encoding.ts, not here.
 */
export default fp(async (fastify) => {
  await fastify.register(compress, { global: false })
}, { name: 'compress' })
