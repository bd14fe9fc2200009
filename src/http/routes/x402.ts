import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { invalidCursor } from '../../core/errors.js'
import { PageQuery, paged } from '../../core/schemas.js'
import { X402Settlement } from '../../core/x402/schemas.js'
import { ADMIN_REFUSALS, PAGE_REFUSED } from '../refusals.js'

/** The operator's journal of x402 payments: money that reached X402_PAY_TO without touching a wallet. */
const x402Routes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { ledger } = fastify
  fastify.addHook('onRequest', fastify.requireAdmin)

  fastify.get('/x402/settlements', {
    schema: {
      tags: ['wallets'],
      security: [{ adminToken: [] }],
      operationId: 'list-x402-settlements',
      summary: 'List x402 settlements',
      description: 'Every x402 payment settled for a call (payer, network, transaction), newest first, a page at a time: ' +
        'pass nextCursor back as cursor for the next page.',
      querystring: PageQuery,
      response: {
        200: paged('settlements', X402Settlement),
        400: PAGE_REFUSED,
        ...ADMIN_REFUSALS
      }
    }
  }, async (request) => {
    const listed = await ledger.settlements.list(request.query)
    if (!listed.ok) throw invalidCursor()
    return { settlements: listed.items, nextCursor: listed.nextCursor }
  })
}

export default x402Routes
