import fp from 'fastify-plugin'

/** Echoes the request id (taken from X-Request-Id or generated) so clients can quote it in reports. */
export default fp(async (fastify) => {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
}, { name: 'request-id' })
