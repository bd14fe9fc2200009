import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { WALLET_HEADER_NAME, WalletStatement, type Wallet } from '../../core/schemas.js'
import { NO_HOST, refusal } from '../refusals.js'

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
      response: {
        200: WalletStatement,
        400: NO_HOST,
        401: refusal('Missing or unknown wallet token.', ['WALLET_TOKEN_MISSING', 'WALLET_NOT_FOUND'])
      }
    },
    onRequest: fastify.requireWalletHolder
  }, async (request) => {
    const wallet = request.walletHolder as Wallet
    return { ...wallet, recent: await fastify.ledger.journal.recent(wallet.id, RECENT_ENTRIES) }
  })
}

export default walletHolderRoutes
