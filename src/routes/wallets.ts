import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError } from '../errors.js'
import { issueWallet } from '../ledger/wallets.js'
import { toMicros } from '../money.js'
import { CreatedWallet, MAX_AMOUNT, ErrorBody, ValidationErrorBody, Wallet } from '../schemas.js'

const WalletParams = Type.Object({ id: Type.String({ description: 'Wallet identifier.' }) })

const adminErrors = {
  400: ValidationErrorBody,
  401: { ...ErrorBody, description: 'Missing or wrong admin token.' },
  403: { ...ErrorBody, description: 'The admin API is disabled (ADMIN_TOKEN unset).' }
}

function micros (amount: number): number {
  const value = toMicros(amount)
  if (value === null) throw new ApiError(400, 'INVALID_AMOUNT', 'Amounts have at most 6 decimal places.')
  return value
}

/** The admin wallet API: create, fund and read wallets. */
const walletAdminRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  fastify.addHook('preHandler', fastify.requireAdmin)

  fastify.post('/wallets', {
    schema: {
      tags: ['wallets'],
      operationId: 'create-wallet',
      summary: 'Create a wallet',
      description: 'Creates a prepaid wallet. The answer holds its token: the only time it is shown.',
      security: [{ adminToken: [] }],
      body: Type.Object({
        balance: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_AMOUNT, default: 0, description: 'Opening balance (default 0).' })),
        currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 currency (default PRICE_CURRENCY).' })),
        label: Type.Optional(Type.String({ maxLength: 200, description: 'Free-text label, for example the client it belongs to.' }))
      }, { description: 'The new wallet.' }),
      response: { 201: CreatedWallet, ...adminErrors }
    }
  }, async (request, reply) => {
    const { balance = 0, currency = fastify.config.PRICE_CURRENCY, label = null } = request.body ?? {}
    const wallet = await issueWallet(fastify.ledger, { micros: micros(balance), currency, label })
    return reply.code(201).send(wallet)
  })

  fastify.post('/wallets/:id/deposits', {
    schema: {
      tags: ['wallets'],
      operationId: 'deposit',
      summary: 'Add funds to a wallet',
      security: [{ adminToken: [] }],
      params: WalletParams,
      body: Type.Object({
        amount: Type.Number({ minimum: 0.000001, maximum: MAX_AMOUNT, description: 'Amount to add, at least 0.000001.' })
      }, { description: 'The deposit.' }),
      response: { 200: Wallet, ...adminErrors, 404: { ...ErrorBody, description: 'No wallet has this id.' } }
    }
  }, async (request) => {
    const wallet = await fastify.ledger.deposit(request.params.id, micros(request.body.amount), request.id)
    if (wallet === null) throw walletNotFound(request.params.id)
    return wallet
  })

  fastify.get('/wallets/:id', {
    schema: {
      tags: ['wallets'],
      operationId: 'get-wallet',
      summary: 'Read a wallet',
      security: [{ adminToken: [] }],
      params: WalletParams,
      response: { 200: Wallet, ...adminErrors, 404: { ...ErrorBody, description: 'No wallet has this id.' } }
    }
  }, async (request) => {
    const wallet = await fastify.ledger.getWallet(request.params.id)
    if (wallet === null) throw walletNotFound(request.params.id)
    return wallet
  })
}

function walletNotFound (id: string): ApiError {
  return new ApiError(404, 'WALLET_NOT_FOUND', `No wallet has the id "${id}".`)
}

export default walletAdminRoutes
