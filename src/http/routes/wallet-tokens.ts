import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { failure, invalidCursor } from '../../core/errors.js'
import type { WalletToken } from '../../core/ledger/tokens/token-repository.js'
import { fromMicros, toMicros } from '../../core/money.js'
import { PageQuery, paged, ref, WALLET_HEADER_NAME } from '../../core/schemas.js'
import type { TokenHolder } from '../../core/tokens/holder.js'
import { mintToken } from '../../core/tokens/mint.js'
import { MintedToken, MintTokenBody, RevokedTokens, TokenId, WalletTokenView } from '../../core/tokens/schemas.js'
import { bodyRefusals, refusal, requestRefusal, TOKEN_HOLDER_REQUIRED } from '../refusals.js'

const TOKEN_NOT_FOUND = refusal('No token of yours has this id.', ['TOKEN_NOT_FOUND'])

/** An amount of the body in micro-units: at most six decimals, as every amount the API takes. */
function micros (amount: number): number {
  const value = toMicros(amount)
  if (value === null) throw failure('INVALID_AMOUNT', 'Amounts have at most 6 decimal places.')
  return value
}

const view = (token: WalletToken, currency: string): WalletTokenView => ({
  id: token.id,
  parentId: token.parentId,
  cap: fromMicros(token.capMicros),
  spent: fromMicros(token.spentMicros),
  remaining: fromMicros(token.capMicros - token.spentMicros),
  perCallCap: token.perCallCapMicros === null ? null : fromMicros(token.perCallCapMicros),
  currency,
  bees: token.bees,
  categories: token.categories,
  label: token.label,
  expiresAt: token.expiresAt,
  revokedAt: token.revokedAt,
  createdAt: token.createdAt
})

/**
 * Verification tokens, managed by their holder: the wallet key mints, lists and revokes all of the
 * wallet's; a token mints narrower children and lists and revokes itself and its descendants.
 */
const walletTokenRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { ledger, registry, walletTokens } = fastify
  fastify.addHook('onRequest', fastify.requireTokenHolder)
  const holding = { tags: ['wallets'], security: [{ walletToken: [] }] }

  fastify.post('/wallet/tokens', {
    schema: {
      ...holding,
      operationId: 'mint-wallet-token',
      summary: 'Mint a verification token',
      description: `A budget to send in ${WALLET_HEADER_NAME} wherever a wallet key works. With a token instead of the key: a child, ` +
        'narrower, whose spend counts against every ancestor.',
      body: MintTokenBody,
      response: {
        201: MintedToken,
        ...bodyRefusals('Invalid body.', ['VALIDATION_FAILED', 'INVALID_AMOUNT']),
        401: TOKEN_HOLDER_REQUIRED,
        403: refusal('A child would be wider than its parent.', ['TOKEN_NARROWING_REQUIRED'])
      }
    }
  }, async (request, reply) => {
    const holder = request.tokenHolder as TokenHolder
    const { cap, perCallCap, expiresInSeconds, bees, categories, label } = request.body
    const { token, jws } = await mintToken(ledger, walletTokens.signer, holder, {
      capMicros: micros(cap),
      perCallCapMicros: perCallCap === undefined ? null : micros(perCallCap),
      expiresInSeconds: expiresInSeconds ?? null,
      bees: bees ?? null,
      categories: categories ?? null,
      label: label ?? null
    }, async (beeId) => (await registry.lookup(beeId))?.record.category, walletTokens.keyring.now())
    request.log.info({ tokenId: token.id, parentId: token.parentId, walletId: token.walletId }, 'verification token minted')
    return reply.code(201).send({ ...view(token, holder.currency), token: jws })
  })

  fastify.get('/wallet/tokens', {
    schema: {
      ...holding,
      operationId: 'list-wallet-tokens',
      summary: 'List your verification tokens',
      description: 'With the wallet key: all; with a token: it and its descendants.',
      querystring: PageQuery,
      response: { 200: paged('tokens', ref(WalletTokenView)), 400: requestRefusal('Invalid limit or cursor.', ['VALIDATION_FAILED', 'INVALID_CURSOR']), 401: TOKEN_HOLDER_REQUIRED }
    }
  }, async (request) => {
    const holder = request.tokenHolder as TokenHolder
    const listed = await ledger.tokens.list(holder.walletId, holder.token?.path ?? null, request.query)
    if (!listed.ok) throw invalidCursor()
    return { tokens: listed.items.map((token) => view(token, holder.currency)), nextCursor: listed.nextCursor }
  })

  fastify.delete('/wallet/tokens/:id', {
    schema: {
      ...holding,
      operationId: 'revoke-wallet-token',
      summary: 'Revoke a verification token and its descendants',
      params: Type.Object({ id: TokenId }),
      response: { 200: RevokedTokens, 400: requestRefusal('Malformed id.', ['VALIDATION_FAILED']), 401: TOKEN_HOLDER_REQUIRED, 404: TOKEN_NOT_FOUND }
    }
  }, async (request) => {
    const holder = request.tokenHolder as TokenHolder
    const target = await ledger.tokens.get(request.params.id)
    const mine = target !== null && target.walletId === holder.walletId && (holder.token === null || target.path.startsWith(holder.token.path))
    if (!mine) throw failure('TOKEN_NOT_FOUND', `No token with the id "${request.params.id}" is yours to manage.`)
    const revoked = await ledger.tokens.revoke(holder.walletId, target.path)
    request.log.info({ tokenId: target.id, revoked }, 'verification tokens revoked')
    return { id: target.id, revoked }
  })
}

export default walletTokenRoutes
