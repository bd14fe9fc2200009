import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ApiError } from '../errors.js'
import { hashSecret } from '../ledger/secrets.js'
import { ErrorBody, WALLET_HEADER, WALLET_HEADER_NAME, WalletStatement } from '../schemas.js'

const RECENT_ENTRIES = 20

/** A wallet holder reads its own wallet with its token. */
const walletHolderRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.get('/wallet', {
    schema: {
      tags: ['wallets'],
      operationId: 'get-own-wallet',
      summary: 'Read your wallet',
      description: `The wallet whose token is sent in ${WALLET_HEADER_NAME}, with its ${RECENT_ENTRIES} most recent journal entries.`,
      security: [{ walletToken: [] }],
      response: { 200: WalletStatement, 401: { ...ErrorBody, description: 'Missing or unknown wallet token.' } }
    }
  }, async (request) => {
    const token = request.headers[WALLET_HEADER]
    if (typeof token !== 'string' || token.length === 0) {
      throw new ApiError(401, 'WALLET_TOKEN_MISSING', `Send your wallet token in ${WALLET_HEADER_NAME}.`)
    }
    const wallet = await fastify.ledger.getWalletByToken(hashSecret(token))
    if (wallet === null) throw new ApiError(401, 'WALLET_NOT_FOUND', `No wallet has the token in ${WALLET_HEADER_NAME}.`)
    return { ...wallet, recent: (await fastify.ledger.journal(wallet.id, { limit: RECENT_ENTRIES })).items }
  })
}

export default walletHolderRoutes
