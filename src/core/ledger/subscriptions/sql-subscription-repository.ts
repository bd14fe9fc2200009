import { randomBytes } from 'node:crypto'
import type { Kysely, Selectable } from 'kysely'
import { saleRows } from '../earnings/split.js'
import type { Tables } from '../tables.js'
import { now } from '../timestamps.js'
import { decodeIdCursor } from '../cursors.js'
import { tokenRefusal } from '../holds/token-hold.js'
import { INVALID_CURSOR, page } from '../paging.js'
import { lineageOf } from '../tokens/token-repository.js'
import { LIVE } from './included-call.js'
import type { SubscriptionDialect } from './subscription-dialect.js'
import type { Consumed, SubscribeOutcome, SubscribeRequest, Subscription, SubscriptionRepository } from './subscription-repository.js'

const toSubscription = (row: Selectable<Tables['subscriptions']>): Subscription => ({
  id: row.id,
  walletId: row.wallet_id,
  beeId: row.bee_id,
  currency: row.currency,
  plan: {
    periodPriceMicros: Number(row.period_price),
    periodSeconds: Number(row.period_seconds),
    includedCalls: Number(row.included),
    overageMicros: row.overage === null ? null : Number(row.overage)
  },
  periodStart: row.period_start,
  periodEnd: row.period_end,
  used: Number(row.used),
  state: row.state,
  createdAt: row.created_at
})

const after = (start: string, seconds: number) => new Date(Date.parse(start) + seconds * 1000).toISOString()

interface Charge { walletId: string, micros: number, beeId: string, payee: string, currency: string, requestId: string | null }

/**
 * Subscriptions over Kysely: the same queries serve SQLite and PostgreSQL, but for what `dialect` does its own way
 * (taking and giving back an included call, row locks). `feeBps`: PLATFORM_FEE_BPS.
 */
export function sqlSubscriptionRepository (db: Kysely<Tables>, dialect: SubscriptionDialect, feeBps: number): SubscriptionRepository {
  const { writing } = dialect

  /**
   * A period's price, once the wallet was debited: journaled as a hold captured at once, and credited to
   * the payee (less the fee to the operator) as a capture would, so audits and the sum invariant see a sale.
   */
  const journalSale = async (trx: Kysely<Tables>, charge: Charge) => {
    const at = now()
    const hold = await trx.insertInto('journal').values({
      wallet_id: charge.walletId, kind: 'hold', amount: charge.micros, bee_id: charge.beeId, request_id: charge.requestId, idempotency_key: null, refund_of: null, created_at: at
    }).returning('id').executeTakeFirstOrThrow()
    const holdId = Number(hold.id)
    await trx.insertInto('holds').values({ id: holdId, wallet_id: charge.walletId, amount: charge.micros, state: 'captured', expires_at: at, payee: charge.payee }).execute()
    await trx.insertInto('journal').values({
      wallet_id: charge.walletId, kind: 'capture', amount: charge.micros, bee_id: charge.beeId, request_id: charge.requestId, idempotency_key: null, refund_of: null, hold_id: holdId, created_at: at
    }).execute()
    await trx.insertInto('earnings').values(saleRows(charge.payee, charge.micros, feeBps, 'sale').map((row) => ({
      ...row, currency: charge.currency, bee_id: charge.beeId, hold_id: holdId, request_id: charge.requestId, reference: null, created_at: at
    }))).execute()
  }

  const liveQuery = (trx: Kysely<Tables>, walletId: string, beeId: string) => trx.selectFrom('subscriptions').selectAll()
    .where('wallet_id', '=', walletId).where('bee_id', '=', beeId).where('state', 'in', LIVE)

  const subscribeOnce = async ({ tokenHash, beeId, payee, currency, plan, requestId }: SubscribeRequest): Promise<SubscribeOutcome> =>
    await writing(async (trx) => {
      const wallet = await trx.selectFrom('wallets').select(['id', 'balance', 'currency', 'frozen']).where('token_hash', '=', tokenHash).executeTakeFirst()
      if (wallet === undefined) return { ok: false, reason: 'WALLET_NOT_FOUND' } as const
      if (Number(wallet.frozen) === 1) return { ok: false, reason: 'WALLET_FROZEN' } as const
      if (wallet.currency !== currency) return { ok: false, reason: 'CURRENCY_MISMATCH' } as const
      if (await liveQuery(trx, wallet.id, beeId).executeTakeFirst() !== undefined) return { ok: false, reason: 'ALREADY_SUBSCRIBED' } as const
      // Conditional, as a hold is: concurrent payments from the wallet never overdraw it.
      const debited = await trx.updateTable('wallets').set((eb) => ({ balance: eb('balance', '-', plan.periodPriceMicros) }))
        .where('id', '=', wallet.id).where('balance', '>=', plan.periodPriceMicros).returning('balance').executeTakeFirst()
      if (debited === undefined) return { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: Number(wallet.balance) } as const
      await journalSale(trx, { walletId: wallet.id, micros: plan.periodPriceMicros, beeId, payee, currency, requestId })
      const start = now()
      // A concurrent subscribe that passed the check above too fails here, on the live index, and rolls back whole.
      const row = await trx.insertInto('subscriptions').values({
        id: `sub_${randomBytes(12).toString('base64url')}`,
        wallet_id: wallet.id,
        bee_id: beeId,
        payee,
        currency,
        period_price: plan.periodPriceMicros,
        period_seconds: plan.periodSeconds,
        included: plan.includedCalls,
        overage: plan.overageMicros,
        period_start: start,
        period_end: after(start, plan.periodSeconds),
        used: 0,
        state: 'active',
        created_at: start
      }).returningAll().executeTakeFirstOrThrow()
      return { ok: true, subscription: toSubscription(row), balanceMicros: Number(debited.balance) } as const
    })

  /** Why the wallet has no included call left on the Bee: used up (or about to renew), or no live subscription. */
  const whyNotIncluded = async (walletId: string, beeId: string): Promise<Consumed> => {
    const row = await liveQuery(db, walletId, beeId).executeTakeFirst()
    if (row === undefined || (row.state === 'canceled' && row.period_end <= now())) return { kind: 'none' }
    // Used up, or past its end and about to be renewed: the next period starts then.
    return { kind: 'exhausted', resetsAt: row.period_end, overageMicros: row.overage === null ? null : Number(row.overage) }
  }

  return {
    async subscribe (request) {
      try {
        return await subscribeOnce(request)
      } catch (error) {
        // Lost a race on the live index (PostgreSQL: another instance committed first): rolled back whole, nothing charged.
        const wallet = await db.selectFrom('wallets').select('id').where('token_hash', '=', request.tokenHash).executeTakeFirst()
        if (wallet !== undefined && await liveQuery(db, wallet.id, request.beeId).executeTakeFirst() !== undefined) {
          return { ok: false, reason: 'ALREADY_SUBSCRIBED' }
        }
        throw error
      }
    },

    async live (walletId, beeId) {
      const row = await liveQuery(db, walletId, beeId).executeTakeFirst()
      return row === undefined ? null : toSubscription(row)
    },

    async cancel (walletId, beeId) {
      const row = await db.updateTable('subscriptions').set({ state: 'canceled' })
        .where('wallet_id', '=', walletId).where('bee_id', '=', beeId).where('state', '=', 'active').returningAll().executeTakeFirst()
      return row === undefined ? null : toSubscription(row)
    },

    async consume ({ beeId, requestId, payer }) {
      if ('walletId' in payer) {
        const taken = await dialect.takeIncludedAlone({ walletId: payer.walletId, beeId, tokenId: null, requestId })
        return taken ?? await whyNotIncluded(payer.walletId, beeId)
      }
      const { token } = payer
      const outcome = await writing(async (trx): Promise<Consumed | { kind: 'elsewhere', walletId: string }> => {
        const own = await trx.selectFrom('wallet_tokens').select(['path', 'wallet_id']).where('id', '=', token.id).executeTakeFirst()
        if (own === undefined) return { kind: 'refused', refusal: { ok: false, reason: 'TOKEN_NOT_FOUND' } }
        // Shared locks: a revocation committing meanwhile waits for this call instead of letting it through after.
        const lineage = dialect.forShare(trx.selectFrom('wallet_tokens').selectAll().where('id', 'in', lineageOf(own.path)))
        const refusal = tokenRefusal(await lineage.execute(), { micros: 0, beeId }, token, now())
        if (refusal !== null) return { kind: 'refused', refusal }
        return await dialect.takeIncluded(trx, { walletId: own.wallet_id, beeId, tokenId: token.id, requestId }) ?? { kind: 'elsewhere', walletId: own.wallet_id }
      })
      return outcome.kind === 'elsewhere' ? await whyNotIncluded(outcome.walletId, beeId) : outcome
    },

    giveBack: dialect.giveBack,

    async calls (walletId, beeId, { limit, cursor }) {
      const before = cursor === undefined ? undefined : decodeIdCursor(cursor)
      if (before === null) return INVALID_CURSOR
      let query = db.selectFrom('subscription_calls').selectAll().where('wallet_id', '=', walletId).where('bee_id', '=', beeId).orderBy('id', 'desc').limit(limit + 1)
      if (before !== undefined) query = query.where('id', '<', before)
      return page(await query.execute(), limit, (row) => Number(row.id), (row) => ({
        id: Number(row.id),
        subscriptionId: row.subscription_id,
        beeId: row.bee_id,
        tokenId: row.token_id,
        requestId: row.request_id,
        returnedAt: row.returned_at,
        createdAt: row.created_at
      }))
    },

    async renewDue (limit) {
      return await writing(async (trx) => {
        // Other instances skip what this one is settling instead of queueing behind it.
        const due = dialect.forUpdateSkipLocked(trx.selectFrom('subscriptions').selectAll().where('state', 'in', LIVE).where('period_end', '<=', now())
          .orderBy('period_end').limit(limit))
        const settled = { renewed: 0, lapsed: 0, ended: 0 }
        for (const row of await due.execute()) {
          if (row.state === 'canceled') {
            await trx.updateTable('subscriptions').set({ state: 'ended' }).where('id', '=', row.id).execute()
            settled.ended++
            continue
          }
          const price = Number(row.period_price)
          const paid = await trx.updateTable('wallets').set((eb) => ({ balance: eb('balance', '-', price) }))
            .where('id', '=', row.wallet_id).where('frozen', '=', 0).where('balance', '>=', price).returning('id').executeTakeFirst()
          if (paid === undefined) {
            await trx.updateTable('subscriptions').set({ state: 'lapsed' }).where('id', '=', row.id).execute()
            settled.lapsed++
            continue
          }
          await journalSale(trx, { walletId: row.wallet_id, micros: price, beeId: row.bee_id, payee: row.payee, currency: row.currency, requestId: null })
          // The new period starts now: a subscription left unrenewed while no instance ran is not billed for the gap.
          const start = now()
          await trx.updateTable('subscriptions').set({ period_start: start, period_end: after(start, Number(row.period_seconds)), used: 0 })
            .where('id', '=', row.id).execute()
          settled.renewed++
        }
        return settled
      })
    }
  }
}
