import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { failure, invalidCursor } from '../../core/errors.js'
import { EARNINGS_ACCOUNT_PATTERN, EarningsAccountId, EarningsStatement, Payout } from '../../core/earnings/schemas.js'
import { OPERATOR_ACCOUNT } from '../../core/ledger/earnings/split.js'
import { CurrencyCode, MAX_AMOUNT, PageQuery } from '../../core/schemas.js'
import { amountMicros } from '../amounts.js'
import { ADMIN_REFUSALS, bodyRefusals, PAGE_REFUSED, PRINCIPAL_REQUIRED, refusal } from '../refusals.js'

const noSuchPublisher = refusal('No publisher has this id (or it is not you).', ['PUBLISHER_NOT_FOUND'], { name: 'PublisherNotFound' })

const publisherNotFound = (id: string) => failure('PUBLISHER_NOT_FOUND', `No publisher has the id "${id}" (or it is not you).`)

/**
 * The account a reader of `id` may see: a publisher its own (`me` or its id), the operator any
 * (`me` is the operator's own); anything else is not found, so a publisher learns nothing of others.
 */
function accountOf (request: FastifyRequest, id: string): string {
  const { principal } = request
  if (principal?.kind === 'publisher') {
    if (id !== 'me' && id !== principal.publisher.id) throw publisherNotFound(id)
    return principal.publisher.id
  }
  return id === 'me' ? OPERATOR_ACCOUNT : id
}

/** Earnings: what the sales of each publisher's Bees (and the operator's) earned, and the payouts recorded against them. */
const earningsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { ledger } = fastify

  fastify.get('/publishers/:id/earnings', {
    schema: {
      tags: ['earnings'],
      operationId: 'get-earnings',
      summary: 'Read earnings and their statement',
      description: 'Balance, totals and entries (newest first, paged) of an earnings account. A publisher key reads its own (id me); ' +
        'the admin token any publisher\'s, and the operator\'s (id operator, or me).',
      security: [{ publisherKey: [] }, { adminToken: [] }],
      params: Type.Object({ id: Type.String({ pattern: EARNINGS_ACCOUNT_PATTERN.replace('operator', 'me|operator'), description: 'me, a publisher id, or operator.' }) }),
      querystring: PageQuery,
      response: { 200: EarningsStatement, 400: PAGE_REFUSED, 401: PRINCIPAL_REQUIRED, 404: noSuchPublisher }
    },
    onRequest: fastify.requirePrincipal
  }, async (request) => {
    const account = accountOf(request, request.params.id)
    if (!await ledger.earnings.exists(account)) throw publisherNotFound(account)
    const entries = await ledger.earnings.entries(account, request.query)
    if (!entries.ok) throw invalidCursor()
    return { account, balances: await ledger.earnings.balances(account), entries: entries.items, nextCursor: entries.nextCursor }
  })

  fastify.post('/publishers/:id/payouts', {
    schema: {
      tags: ['earnings'],
      operationId: 'record-payout',
      summary: 'Record a payout',
      description: 'Records money paid out of an earnings account (the transfer happens outside Apiary); refused over the balance. ' +
        'Concurrent payouts of one account take turns.',
      security: [{ adminToken: [] }],
      params: Type.Object({ id: EarningsAccountId }),
      body: Type.Object({
        amount: Type.Number({ minimum: 0.000001, maximum: MAX_AMOUNT, description: 'At most the balance.' }),
        currency: Type.Optional(CurrencyCode('Default PRICE_CURRENCY.')),
        reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Your transfer reference.' }))
      }, { description: 'The payout.', examples: [{ amount: 12.5, reference: 'SEPA-0042' }] }),
      response: {
        201: Payout,
        ...bodyRefusals('The id or body is invalid.', ['VALIDATION_FAILED', 'INVALID_AMOUNT']),
        ...ADMIN_REFUSALS,
        404: noSuchPublisher,
        409: refusal('The payout exceeds the balance; nothing was recorded.', ['PAYOUT_EXCEEDS_BALANCE'])
      }
    },
    onRequest: fastify.requireAdmin
  }, async (request, reply) => {
    const { id } = request.params
    const { amount, currency = fastify.config.PRICE_CURRENCY, reference = null } = request.body
    const paid = await ledger.earnings.payout({ account: id, micros: amountMicros(amount), currency, reference, requestId: request.id })
    if (!paid.ok) {
      if (paid.reason === 'ACCOUNT_NOT_FOUND') throw publisherNotFound(id)
      throw failure('PAYOUT_EXCEEDS_BALANCE', `The payout of ${amount} ${currency} exceeds the balance of ${paid.balance.balance} ${currency}.`)
    }
    request.log.info({ account: id, amount, currency }, 'payout recorded')
    return reply.code(201).send({ payout: paid.payout, balance: paid.balance })
  })
}

export default earningsRoutes
