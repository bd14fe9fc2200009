import { test } from 'tap'
import type { Ledger } from '../../../../src/core/ledger/ledger.js'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import { hashSecret } from '../../../../src/core/ledger/secrets.js'
import type { PlanMicros } from '../../../../src/core/ledger/subscriptions/subscription-repository.js'
import type { NewWalletToken } from '../../../../src/core/ledger/tokens/token-repository.js'
import { backends, countRows, issuedWallet, ledgerSums, runSql, twoInstances } from '../../../databases.js'
import { SECRETS_KEY } from '../../../helper.js'

const PUBLISHER = 'pub_acme'
const BEE = 'shouter'
/** 1 USD a 30-day period, 10 calls included, 0.01 a call past them. */
const plan: PlanMicros = { periodPriceMicros: 1_000_000, periodSeconds: 30 * 86_400, includedCalls: 10, overageMicros: 10_000 }

const subscribe = (store: Ledger, token: string, extra: Partial<PlanMicros> = {}) =>
  store.subscriptions.subscribe({ tokenHash: hashSecret(token), beeId: BEE, payee: PUBLISHER, currency: 'USD', plan: { ...plan, ...extra }, requestId: 'r-sub' })

for (const backend of backends) {
  test(`subscriptions on ${backend.name}: paid at once and split, one live per wallet and Bee, quota, give-back, cancel, renewal, lapse`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY, platformFeeBps: 2000 })
    t.teardown(() => store.close())
    await store.catalog.createPublisher({ id: PUBLISHER, email: 'a@example.com', name: 'A', createdAt: new Date().toISOString(), keyHash: 'h' })
    const wallet = await issuedWallet(store, 2_500_000)
    const poor = await issuedWallet(store, 999_999)

    t.match(await subscribe(store, poor.token), { ok: false, reason: 'INSUFFICIENT_FUNDS', balanceMicros: 999_999 })
    t.same(await subscribe(store, 'awt_nobody'), { ok: false, reason: 'WALLET_NOT_FOUND' })
    const subscribed = await subscribe(store, wallet.token, { includedCalls: 3, overageMicros: null })
    if (!subscribed.ok) throw new Error(subscribed.reason)
    t.match(subscribed, { balanceMicros: 1_500_000, subscription: { beeId: BEE, used: 0, state: 'active', plan: { includedCalls: 3 } } })
    t.same(await subscribe(store, wallet.token), { ok: false, reason: 'ALREADY_SUBSCRIBED' }, 'nothing charged twice')
    t.same(await store.earnings.balances(PUBLISHER), [{ currency: 'USD', balance: 0.8, earned: 0.8, fees: 0.2, paidOut: 0 }], 'the period price, less 20 %')
    t.same(await store.earnings.balances('operator'), [{ currency: 'USD', balance: 0.2, earned: 0.2, fees: 0, paidOut: 0 }])
    t.match(await store.journal.audit(wallet.id), { balanceMicros: 1_500_000, journalMicros: 1_500_000 }, 'journaled as a captured hold')

    const consume = (requestId = 'r-call') => store.subscriptions.consume({ beeId: BEE, requestId, payer: { walletId: wallet.id } })
    const first = await consume('r-first')
    t.match(first, { kind: 'included', subscriptionId: subscribed.subscription.id })
    if (first.kind !== 'included') return
    await store.subscriptions.giveBack(first.callId)
    t.equal((await store.subscriptions.live(wallet.id, BEE))?.used, 0, 'a failed call gives its included call back')
    await store.subscriptions.giveBack(first.callId)
    t.equal((await store.subscriptions.live(wallet.id, BEE))?.used, 0, 'once')
    for (let i = 0; i < 3; i++) t.equal((await consume()).kind, 'included')
    t.same(await consume(), { kind: 'exhausted', resetsAt: subscribed.subscription.periodEnd, overageMicros: null })
    const journaled = await store.subscriptions.calls(wallet.id, BEE, { limit: 3 })
    if (!journaled.ok) throw new Error('paging')
    t.equal(journaled.items.length, 3, 'each included call is journaled; a refused one is not')
    t.ok(journaled.items.every((call) => call.returnedAt === null && call.requestId === 'r-call' && call.tokenId === null && call.subscriptionId === subscribed.subscription.id))
    const older = await store.subscriptions.calls(wallet.id, BEE, { limit: 3, cursor: journaled.nextCursor as string })
    t.match(older, { ok: true, nextCursor: null, items: [{ id: first.callId, requestId: 'r-first', returnedAt: String }] }, 'the given-back call is marked, not removed')
    t.same(await store.subscriptions.calls(wallet.id, BEE, { limit: 3, cursor: 'nonsense' }), { ok: false, reason: 'INVALID_CURSOR' })
    t.same(await store.subscriptions.consume({ beeId: BEE, requestId: null, payer: { walletId: poor.id } }), { kind: 'none' })

    // The period ends: renewed (paid again, quota reset) while the wallet can pay, then lapsed.
    const expire = () => runSql(database, ['UPDATE subscriptions SET period_end = \'2000-01-01T00:00:00.000Z\''])
    await expire()
    const last = await store.subscriptions.calls(wallet.id, BEE, { limit: 1 })
    t.same(await store.subscriptions.renewDue(10), { renewed: 1, lapsed: 0, ended: 0 })
    t.match(await store.subscriptions.live(wallet.id, BEE), { used: 0, state: 'active' })
    if (last.ok && last.items[0] !== undefined) await store.subscriptions.giveBack(last.items[0].id)
    t.equal((await store.subscriptions.live(wallet.id, BEE))?.used, 0, 'a give-back from the period before counts nothing off the new one')
    t.match(await store.wallets.get(wallet.id), { balance: 0.5 })
    t.same(await store.subscriptions.renewDue(10), { renewed: 0, lapsed: 0, ended: 0 }, 'nothing due any more')
    await expire()
    t.same(await store.subscriptions.renewDue(10), { renewed: 0, lapsed: 1, ended: 0 }, '0.5 does not pay for a period')
    t.equal(await store.subscriptions.live(wallet.id, BEE), null)
    t.same(await consume(), { kind: 'none' })
    t.match(await store.wallets.get(wallet.id), { balance: 0.5 })

    // Canceled: runs to the period's end, then ends without a renewal.
    await store.wallets.deposit(wallet.id, 1_000_000, null)
    t.ok((await subscribe(store, wallet.token)).ok, 'a lapsed subscription can be taken again')
    t.match(await store.subscriptions.cancel(wallet.id, BEE), { state: 'canceled' })
    t.equal(await store.subscriptions.cancel(wallet.id, BEE), null, 'once')
    t.equal((await consume()).kind, 'included', 'still usable until the period ends')
    await expire()
    t.same(await store.subscriptions.renewDue(10), { renewed: 0, lapsed: 0, ended: 1 })
    t.same(await consume(), { kind: 'none' })
    t.match(await store.wallets.get(wallet.id), { balance: 0.5 }, 'never charged again')
    const sums = await ledgerSums(database)
    t.equal(sums.held, sums.owed, 'wallets + pending + earnings = deposits − payouts')
  })

  test(`N concurrent calls on K included calls, from two instances, get exactly K (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const [first, second] = await twoInstances(t, database, { secretsKey: SECRETS_KEY, poolSize: 8 })
    const wallet = await issuedWallet(first, 1_000_000)
    t.ok((await subscribe(first, wallet.token)).ok)
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? first : second).subscriptions.consume({ beeId: BEE, requestId: `r-${i}`, payer: { walletId: wallet.id } })))
    t.equal(outcomes.filter((outcome) => outcome.kind === 'included').length, 10)
    t.ok(outcomes.filter((outcome) => outcome.kind !== 'included').every((outcome) => outcome.kind === 'exhausted' && outcome.overageMicros === 10_000))
    t.equal((await first.subscriptions.live(wallet.id, BEE))?.used, 10)
    t.equal(await countRows(database, 'subscription_calls'), 10, 'one journal row per included call, none for a refused one')
    const fresh = await issuedWallet(first, 10_000_000)
    const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => subscribe(i % 2 === 0 ? first : second, fresh.token)))
    t.equal(racing.filter((outcome) => outcome.ok).length, 1, 'concurrent subscribes: one wins')
    t.ok(racing.every((outcome) => outcome.ok || outcome.reason === 'ALREADY_SUBSCRIBED'))
    t.match(await first.wallets.get(fresh.id), { balance: 9 }, 'charged once')
  })
}

const token = (walletId: string, id: string, extra: Partial<NewWalletToken> = {}): NewWalletToken => {
  const expiresAt = new Date(Date.now() + 3_600_000).toISOString()
  return { id, walletId, parentId: null, capMicros: 1_000_000, perCallCapMicros: null, bees: null, categories: null, label: null, expiresAt, ...extra }
}

for (const backend of backends) {
  test(`a verification token spends its wallet's subscription while it and its ancestors are valid and allow the Bee (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())
    const wallet = await issuedWallet(store, 2_000_000)
    t.ok((await subscribe(store, wallet.token, { includedCalls: 5 })).ok)
    const root = await store.tokens.create(token(wallet.id, 'tok_root', { bees: [BEE, 'other'] }), null)
    const child = await store.tokens.create(token(wallet.id, 'tok_child', { parentId: root.id }), root.path)
    const elsewhere = await store.tokens.create(token(wallet.id, 'tok_elsewhere', { bees: ['other'] }), null)
    const byToken = (id: string) => store.subscriptions.consume({ beeId: BEE, requestId: `r-${id}`, payer: { token: { id, category: 'utility' } } })

    const used = await byToken(child.id)
    t.match(used, { kind: 'included' }, 'a child token takes an included call of the root\'s wallet')
    const journaled = await store.subscriptions.calls(wallet.id, BEE, { limit: 5 })
    t.match(journaled, { ok: true, items: [{ tokenId: child.id, requestId: 'r-tok_child' }] }, 'journaled with the token that spent it')
    t.match(await store.tokens.get(child.id), { spentMicros: 0 }, 'an included call spends no cap')
    t.same(await byToken(elsewhere.id), { kind: 'refused', refusal: { ok: false, reason: 'TOKEN_SCOPE_DENIED' } })
    t.same(await byToken('tok_unknown'), { kind: 'refused', refusal: { ok: false, reason: 'TOKEN_NOT_FOUND' } })
    await store.tokens.revoke(wallet.id, root.path)
    t.same(await byToken(child.id), { kind: 'refused', refusal: { ok: false, reason: 'TOKEN_REVOKED' } }, 'revoking the root stops the child at once')
    const expired = await store.tokens.create(token(wallet.id, 'tok_old', { expiresAt: '2000-01-01T00:00:00.000Z' }), null)
    t.same(await byToken(expired.id), { kind: 'refused', refusal: { ok: false, reason: 'TOKEN_EXPIRED' } })
    t.equal((await store.subscriptions.live(wallet.id, BEE))?.used, 1, 'only the valid token used the quota')
    const fresh = await store.tokens.create(token(wallet.id, 'tok_fresh'), null)
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => byToken(fresh.id)))
    t.equal(outcomes.filter((outcome) => outcome.kind === 'included').length, 4, 'concurrent token calls take exactly what is left')
    t.ok(outcomes.every((outcome) => outcome.kind === 'included' || outcome.kind === 'exhausted'))
  })
}
