import type { FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { failure, failureAs } from '../src/core/errors.js'
import { hashSecret, secretsMatch } from '../src/core/ledger/secrets.js'
import type { Principal } from '../src/core/principal.js'
import { WALLET_HEADER_NAME, type Wallet } from '../src/core/schemas.js'
import { bearerOf } from '../src/http/bearer.js'
import { walletTokenOf } from '../src/http/wallet-token.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** onRequest hook of admin routes: `Authorization: Bearer $ADMIN_TOKEN`. */
    requireAdmin (request: FastifyRequest): Promise<void>
    /** onRequest hook of routes open to publishers too: `Authorization: Bearer <admin token or publisher key>`. */
    requirePrincipal (request: FastifyRequest): Promise<void>
    /** onRequest hook of the wallet holder's routes: the wallet whose token is in X-Registry-Wallet-Token. */
    requireWalletHolder (request: FastifyRequest): Promise<void>
  }
  interface FastifyRequest {
    principal: Principal | null
    /** The wallet that requireWalletHolder found. */
    walletHolder: Wallet | null
  }
}

const unauthorized = (who: string) => failure('UNAUTHORIZED', `Send ${who} as Authorization: Bearer <token>.`)

/**
 * Who is calling: the operator (ADMIN_TOKEN, compared in constant time), a publisher or a wallet holder
 * (key or token looked up by hash). Routes use these as onRequest hooks, so credentials are checked
 * before the body is read: an unauthenticated request learns nothing from how its body is judged, and
 * costs no parsing.
 */
export default fp(async (fastify) => {
  const adminToken = fastify.config.ADMIN_TOKEN
  if (adminToken === undefined) {
    fastify.log.warn('ADMIN_TOKEN is not set: the admin API (wallets, publishers) is disabled; use `npm run wallet` for local wallets')
  }
  fastify.decorateRequest('principal', null)
  fastify.decorateRequest('walletHolder', null)

  fastify.decorate('requireAdmin', async function requireAdmin (request: FastifyRequest) {
    if (adminToken === undefined) {
      throw failure('ADMIN_DISABLED', 'The admin API is disabled on this server: the operator has not set ADMIN_TOKEN.')
    }
    const presented = bearerOf(request)
    if (presented === undefined || !secretsMatch(presented, adminToken)) throw unauthorized('the admin token')
    request.principal = { kind: 'admin' }
  })

  fastify.decorate('requirePrincipal', async function requirePrincipal (request: FastifyRequest) {
    const presented = bearerOf(request)
    if (presented === undefined) throw unauthorized('your publisher key')
    if (adminToken !== undefined && secretsMatch(presented, adminToken)) {
      request.principal = { kind: 'admin' }
      return
    }
    const publisher = await fastify.ledger.catalog.publisherByKey(hashSecret(presented))
    if (publisher === null) throw unauthorized('your publisher key')
    request.principal = { kind: 'publisher', publisher }
  })

  fastify.decorate('requireWalletHolder', async function requireWalletHolder (request: FastifyRequest) {
    const token = walletTokenOf(request)
    if (token === undefined) {
      throw failureAs('WALLET_TOKEN_MISSING', 401, `Send your wallet token in ${WALLET_HEADER_NAME}.`)
    }
    const wallet = await fastify.ledger.wallets.getByToken(hashSecret(token))
    if (wallet === null) throw failureAs('WALLET_NOT_FOUND', 401, `No wallet has the token in ${WALLET_HEADER_NAME}.`)
    request.walletHolder = wallet
  })
}, { name: 'auth', dependencies: ['config', 'ledger'] })
