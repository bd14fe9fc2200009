import type { FastifyRequest } from 'fastify'
import { WALLET_HEADER } from '../core/schemas.js'

/** The wallet credential a request presents in X-Registry-Wallet-Token; undefined when absent, empty or repeated. */
export function walletTokenOf (request: FastifyRequest): string | undefined {
  const token = request.headers[WALLET_HEADER]
  return typeof token === 'string' && token.length > 0 ? token : undefined
}
