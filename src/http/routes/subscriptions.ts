import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { beeNotFound, failure, failureAs, invalidCursor } from '../../core/errors.js'
import { payeeOf } from '../../core/ledger/earnings/split.js'
import { hashSecret } from '../../core/ledger/secrets.js'
import { fromMicros } from '../../core/money.js'
import type { RegisteredBee } from '../../core/registry.js'
import { BeeIdParams, isBeeId, PageQuery, paged, ref, type Wallet } from '../../core/schemas.js'
import { Subscription, SubscriptionCall, toSubscription } from '../../core/subscriptions/schemas.js'
import { walletTokenOf } from '../wallet-token.js'
import { BEE_NOT_FOUND, BODY_NOT_JSON, NO_HOST, PAGE_REFUSED, refusal } from '../refusals.js'

const SUBSCRIPTION = ref(Subscription)
const WALLET_REQUIRED = refusal('Missing or unknown wallet token.', ['WALLET_TOKEN_MISSING', 'WALLET_NOT_FOUND'], { name: 'WalletTokenRequired' })
const NOT_SUBSCRIBED = refusal('The wallet has no live subscription to this Bee.', ['SUBSCRIPTION_NOT_FOUND'], { name: 'SubscriptionNotFound' })

const notSubscribed = (id: string) => failure('SUBSCRIPTION_NOT_FOUND', `Your wallet has no live subscription to ${id}.`)

/**
 * Subscriptions to Bees priced `subscription`, by the wallet holder (X-Registry-Wallet-Token). The
 * quota itself is taken by the execution core on every door (see subscriptionCall).
 */
const subscriptionRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { ledger, registry } = fastify
  const common = { tags: ['subscriptions'], security: [{ walletToken: [] }], params: BeeIdParams }
  const beeOf = async (id: string): Promise<RegisteredBee> => {
    const bee = await registry.lookup(id)
    if (bee === undefined) throw beeNotFound(id)
    return bee
  }
  const walletOf = (request: FastifyRequest) => request.walletHolder as Wallet

  fastify.post('/bees/:id/subscription', {
    schema: {
      ...common,
      operationId: 'subscribe',
      summary: 'Subscribe to a Bee',
      response: {
        201: SUBSCRIPTION,
        ...BODY_NOT_JSON,
        401: WALLET_REQUIRED,
        402: refusal('The wallet cannot pay.', ['INSUFFICIENT_FUNDS', 'CURRENCY_MISMATCH', 'WALLET_FROZEN']),
        404: BEE_NOT_FOUND,
        409: refusal('Not a subscription Bee, or already subscribed.', ['BEE_NOT_SUBSCRIPTION', 'ALREADY_SUBSCRIBED'])
      }
    },
    onRequest: fastify.requireWalletHolder
  }, async (request, reply) => {
    const bee = await beeOf(request.params.id)
    const { id, ownerId, pricing } = bee.record
    if (bee.plan === null) throw failure('BEE_NOT_SUBSCRIPTION', `${id} is not priced by subscription (${pricing.type}).`)
    const subscribed = await ledger.subscriptions.subscribe({
      tokenHash: hashSecret(walletTokenOf(request) as string),
      beeId: id,
      payee: payeeOf(ownerId),
      currency: pricing.currency,
      plan: bee.plan,
      requestId: request.id
    })
    if (subscribed.ok) return reply.code(201).send(toSubscription(subscribed.subscription))
    switch (subscribed.reason) {
      case 'ALREADY_SUBSCRIBED': throw failure('ALREADY_SUBSCRIBED', `Your wallet already subscribes to ${id}.`)
      case 'INSUFFICIENT_FUNDS':
        throw failure('INSUFFICIENT_FUNDS', `A period of ${id} costs ${fromMicros(bee.plan.periodPriceMicros)} ${pricing.currency}; ` +
          `the wallet holds ${fromMicros(subscribed.balanceMicros)}. Top it up and retry.`)
      case 'CURRENCY_MISMATCH': throw failure('CURRENCY_MISMATCH', `${id} is priced in ${pricing.currency}; this wallet holds another currency.`)
      case 'WALLET_FROZEN': throw failure('WALLET_FROZEN', 'This wallet is frozen by the operator; it cannot pay until it is unfrozen.')
      // requireWalletHolder found it a moment ago: only a deletion in between lands here.
      case 'WALLET_NOT_FOUND': throw failureAs('WALLET_NOT_FOUND', 401, 'No wallet has this token.')
    }
  })

  fastify.get('/bees/:id/subscription', {
    schema: { ...common, operationId: 'get-subscription', summary: 'Read your subscription', response: { 200: SUBSCRIPTION, 400: NO_HOST, 401: WALLET_REQUIRED, 404: NOT_SUBSCRIBED } },
    onRequest: fastify.requireWalletHolder
  }, async (request) => {
    // Subscriptions exist only for Bee ids: anything else (a NUL byte, which PostgreSQL cannot even compare) is not looked up.
    if (!isBeeId(request.params.id)) throw notSubscribed(request.params.id)
    const live = await ledger.subscriptions.live(walletOf(request).id, request.params.id)
    if (live === null) throw notSubscribed(request.params.id)
    return toSubscription(live)
  })

  fastify.get('/bees/:id/subscription/calls', {
    schema: {
      ...common,
      operationId: 'list-subscription-calls',
      summary: 'List the calls your subscription paid for',
      description: 'Every call to the Bee that an included call of your subscriptions paid for (all periods), newest first, a page at a time; ' +
        'a failed call is marked returned. Calls past the quota are paid with money and are in the wallet\'s journal instead.',
      querystring: PageQuery,
      response: { 200: paged('calls', ref(SubscriptionCall)), 400: PAGE_REFUSED, 401: WALLET_REQUIRED, 404: BEE_NOT_FOUND }
    },
    onRequest: fastify.requireWalletHolder
  }, async (request) => {
    if (!isBeeId(request.params.id)) throw beeNotFound(request.params.id)
    const listed = await ledger.subscriptions.calls(walletOf(request).id, request.params.id, request.query)
    if (!listed.ok) throw invalidCursor()
    return { calls: listed.items, nextCursor: listed.nextCursor }
  })

  fastify.delete('/bees/:id/subscription', {
    schema: {
      ...common,
      operationId: 'cancel-subscription',
      summary: 'Cancel at the period\'s end',
      response: { 200: SUBSCRIPTION, ...BODY_NOT_JSON, 401: WALLET_REQUIRED, 404: NOT_SUBSCRIBED }
    },
    onRequest: fastify.requireWalletHolder
  }, async (request) => {
    if (!isBeeId(request.params.id)) throw notSubscribed(request.params.id)
    const canceled = await ledger.subscriptions.cancel(walletOf(request).id, request.params.id)
    if (canceled === null) throw notSubscribed(request.params.id)
    return toSubscription(canceled)
  })
}

export default subscriptionRoutes
