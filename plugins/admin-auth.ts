import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ApiError } from '../src/errors.js'
import { secretsMatch } from '../src/ledger/secrets.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler for admin routes: `Authorization: Bearer $ADMIN_TOKEN`. */
    requireAdmin (request: FastifyRequest): Promise<void>
  }
}

export default fp(async (fastify) => {
  const adminToken = fastify.config.ADMIN_TOKEN
  if (adminToken === undefined) {
    fastify.log.warn('ADMIN_TOKEN is not set: the admin API (/api/wallets) is disabled; use `npm run wallet` for local wallets')
  }

  fastify.decorate('requireAdmin', async function requireAdmin (request: FastifyRequest) {
    if (adminToken === undefined) {
      throw new ApiError(403, 'ADMIN_DISABLED', 'The admin API is disabled on this server: the operator has not set ADMIN_TOKEN.')
    }
    const header = request.headers.authorization
    const presented = header?.startsWith('Bearer ') === true ? header.slice('Bearer '.length) : undefined
    if (presented === undefined || !secretsMatch(presented, adminToken)) {
      throw new ApiError(401, 'UNAUTHORIZED', 'Send the admin token as Authorization: Bearer <ADMIN_TOKEN>.')
    }
  })
}, { name: 'admin-auth', dependencies: ['config'] })
