import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ApiError, balanceLimitExceeded, failureAs, invalidCursor } from '../../core/errors.js'
import { issueWallet } from '../../core/ledger/wallets/issue-wallet.js'
import { CreatedWallet, CurrencyCode, JournalEntry, MAX_AMOUNT, MAX_BALANCE, PageQuery, paged, ref, Wallet, WalletId } from '../../core/schemas.js'
import { amountMicros as micros } from '../amounts.js'
import { ADMIN_REFUSALS, bodyRefusals, PAGE_REFUSED, refusal, requestRefusal } from '../refusals.js'

// The id's pattern keeps malformed ids (NUL bytes, which PostgreSQL refuses, among them) from the database: 400.
const WalletParams = Type.Object({ id: WalletId })

const noSuchWallet = refusal('No wallet has this id.', ['WALLET_NOT_FOUND'], { name: 'WalletNotFound' })
const fundsRefused = bodyRefusals(`The body does not match its schema, an amount has more than 6 decimals, or the balance would exceed ${MAX_BALANCE}.`,
  ['VALIDATION_FAILED', 'INVALID_AMOUNT', 'BALANCE_LIMIT_EXCEEDED'], 'FundsRefused')
const WALLET = ref(Wallet)

function walletNotFound (id: string): ApiError {
  return failureAs('WALLET_NOT_FOUND', 404, `No wallet has the id "${id}".`)
}

/** The admin wallet API: create, fund, freeze, list and audit wallets. */
const walletAdminRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { ledger } = fastify
  fastify.addHook('onRequest', fastify.requireAdmin)
  const admin = { tags: ['wallets'], security: [{ adminToken: [] }] }

  fastify.post('/wallets', {
    schema: {
      ...admin,
      operationId: 'create-wallet',
      summary: 'Create a wallet',
      description: 'Creates a prepaid wallet. The answer holds its token: the only time it is shown.',
      body: Type.Object({
        balance: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_AMOUNT, default: 0, description: 'Opening balance (default 0).' })),
        currency: Type.Optional(CurrencyCode('ISO 4217 currency (default PRICE_CURRENCY).')),
        label: Type.Optional(Type.String({ maxLength: 200, description: 'Free-text label, for example the client it belongs to.' }))
      }, { description: 'The new wallet.', examples: [{ balance: 5, label: 'agent-7' }] }),
      response: { 201: CreatedWallet, ...fundsRefused, ...ADMIN_REFUSALS }
    }
  }, async (request, reply) => {
    const { balance = 0, currency = fastify.config.PRICE_CURRENCY, label = null } = request.body ?? {}
    const issued = await issueWallet(ledger.wallets, { micros: micros(balance), currency, label, requestId: request.id })
    if (!issued.ok) throw balanceLimitExceeded()
    return reply.code(201).send(issued.wallet)
  })

  fastify.get('/wallets', {
    schema: {
      ...admin,
      operationId: 'list-wallets',
      summary: 'List wallets',
      description: 'Wallets in id order, a page at a time: pass nextCursor back as cursor for the next page.',
      querystring: PageQuery,
      response: { 200: paged('wallets', WALLET), 400: PAGE_REFUSED, ...ADMIN_REFUSALS }
    }
  }, async (request) => {
    const listed = await ledger.wallets.list(request.query)
    if (!listed.ok) throw invalidCursor()
    return { wallets: listed.items, nextCursor: listed.nextCursor }
  })

  fastify.post('/wallets/:id/deposits', {
    schema: {
      ...admin,
      operationId: 'deposit',
      summary: 'Add funds to a wallet',
      params: WalletParams,
      body: Type.Object({
        amount: Type.Number({
          minimum: 0.000001,
          maximum: MAX_AMOUNT,
          description: `Amount to add, 0.000001 to ${MAX_AMOUNT}; the balance may not exceed ${MAX_BALANCE}.`
        })
      }, { description: 'The deposit.', examples: [{ amount: 5 }] }),
      response: { 200: WALLET, ...fundsRefused, ...ADMIN_REFUSALS, 404: noSuchWallet }
    }
  }, async (request) => {
    const deposited = await ledger.wallets.deposit(request.params.id, micros(request.body.amount), request.id)
    if (!deposited.ok) throw deposited.reason === 'WALLET_NOT_FOUND' ? walletNotFound(request.params.id) : balanceLimitExceeded()
    return deposited.wallet
  })

  fastify.get('/wallets/:id', {
    schema: { ...admin, operationId: 'get-wallet', summary: 'Read a wallet', params: WalletParams, response: { 200: WALLET, 400: requestRefusal('The wallet id is malformed.', ['VALIDATION_FAILED']), ...ADMIN_REFUSALS, 404: noSuchWallet } }
  }, async (request) => {
    const wallet = await ledger.wallets.get(request.params.id)
    if (wallet === null) throw walletNotFound(request.params.id)
    return wallet
  })

  fastify.get('/wallets/:id/journal', {
    schema: {
      ...admin,
      operationId: 'get-wallet-journal',
      summary: 'Read a wallet\'s journal',
      description: 'Every deposit, hold, capture and void (and, from before holds, charge and refund) of the wallet, newest first, a page at a time.',
      params: WalletParams,
      querystring: PageQuery,
      response: {
        200: paged('entries', ref(JournalEntry)),
        400: PAGE_REFUSED,
        ...ADMIN_REFUSALS,
        404: noSuchWallet
      }
    }
  }, async (request) => {
    if (await ledger.wallets.get(request.params.id) === null) throw walletNotFound(request.params.id)
    const listed = await ledger.journal.list(request.params.id, request.query)
    if (!listed.ok) throw invalidCursor()
    return { entries: listed.items, nextCursor: listed.nextCursor }
  })

  for (const [action, frozen] of [['freeze', true], ['unfreeze', false]] as const) {
    fastify.post(`/wallets/:id/${action}`, {
      schema: {
        ...admin,
        operationId: `${action}-wallet`,
        summary: frozen ? 'Freeze a wallet: it cannot pay until unfrozen' : 'Unfreeze a wallet',
        params: WalletParams,
        response: { 200: WALLET, ...bodyRefusals('The wallet id is malformed, or a body was sent and it is not JSON.', ['VALIDATION_FAILED'], 'WalletActionRefused'), ...ADMIN_REFUSALS, 404: noSuchWallet }
      }
    }, async (request) => {
      const wallet = await ledger.wallets.setFrozen(request.params.id, frozen)
      if (wallet === null) throw walletNotFound(request.params.id)
      request.log.info({ walletId: wallet.id, frozen }, 'wallet freeze changed')
      return wallet
    })
  }
}

export default walletAdminRoutes
