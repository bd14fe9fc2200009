import { createHash } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'tap'
import { hashSecret } from '../../../src/core/ledger/secrets.js'
import { startFakeBee } from '../../fake-bee.js'
import { adminHeaders, balanceOf, build, createWallet } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'

/** Short enough for a test to outlast: a claim is abandoned after 1 s, a hold expires after 2 s. */
const shortTimes = { IDEMPOTENCY_LEASE_SECONDS: '1', WEATHER_TIMEOUT_MS: '500', REMOTE_BEE_TIMEOUT_MS: '500', HOLD_TIMEOUT_SECONDS: '2' }
const sentiment = '/api/bees/sentiment-analyzer/execute'
const body = { text: 'Lovely.' }

interface Entry { id: number, kind: string, holdId: number | null, idempotencyKey: string | null }
const journalOf = async (app: Awaited<ReturnType<typeof build>>, walletId: string) =>
  (await app.inject({ url: `/api/wallets/${walletId}/journal?limit=200`, headers: adminHeaders })).json<{ entries: Entry[] }>().entries

test('a hold voided before the answer is ready (the sweeper got there first): 503 HOLD_EXPIRED, not charged, the key free', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('slow-shouter', fake.url, { pricing: { type: 'pay-per-use', costPerCall: 0.01 } }))
  const wallet = await createWallet(app, 1)
  const call = () => app.inject({
    method: 'POST',
    url: '/api/bees/slow-shouter/execute',
    payload: { text: 'hi' },
    headers: { 'x-registry-wallet-token': wallet.token, 'idempotency-key': 'late-1' }
  })
  fake.beforeAnswer = async () => {
    const hold = (await journalOf(app, wallet.id)).find((entry) => entry.kind === 'hold')
    if (hold !== undefined) await app.ledger.holds.void(hold.id, null)
  }
  const late = await call()
  t.equal(late.statusCode, 503)
  t.match(late.json(), { error: 'Service Unavailable', code: 'HOLD_EXPIRED', message: /not charged/ })
  t.equal(late.headers['x-registry-cost'], undefined)
  t.equal(await balanceOf(app, wallet.id), 1, 'not charged')
  t.notOk((await journalOf(app, wallet.id)).some((entry) => entry.kind === 'capture'), 'nothing captured')

  fake.beforeAnswer = async () => {}
  const retry = await call()
  t.equal(retry.statusCode, 200, 'the key was freed: the retry runs')
  t.equal(retry.headers['idempotent-replayed'], undefined)
  t.equal(await balanceOf(app, wallet.id), 0.99, 'charged once')
})

test('a retry that takes over an abandoned claim reuses its pending hold: one hold, one capture', async (t) => {
  const app = await build(t, { env: shortTimes })
  const wallet = await createWallet(app, 1)
  // What a process that died mid-call leaves behind: an in-flight claim, and a hold recorded on it.
  const scope = `wallet:${hashSecret(wallet.token)}`
  const requestHash = createHash('sha256').update('sentiment-analyzer').update('\n').update(JSON.stringify(body)).digest('hex')
  const abandon = async (key: string) => {
    await app.ledger.idempotency.claim({ scope, key, requestHash, ttlSeconds: 3600, leaseSeconds: 1 })
    const hold = await app.ledger.holds.place({
      tokenHash: hashSecret(wallet.token), micros: 1000, currency: 'USD', beeId: 'sentiment-analyzer', requestId: 'dead', claim: { scope, key }, expiresInSeconds: 2
    })
    if (!hold.ok) throw new Error('hold refused')
    return hold.holdId
  }
  const call = (key: string) => app.inject({ method: 'POST', url: sentiment, payload: body, headers: { 'x-registry-wallet-token': wallet.token, 'idempotency-key': key } })

  const holdId = await abandon('crashed')
  t.equal((await call('crashed')).statusCode, 409, 'within the lease the claim is still in flight')
  await sleep(1100)
  const retry = await call('crashed')
  t.equal(retry.statusCode, 200)
  t.equal(retry.headers['x-registry-balance'], '0.999', 'the reused hold is the only debit')
  const entries = (await journalOf(app, wallet.id)).filter((entry) => entry.idempotencyKey === 'crashed')
  t.same(entries.map((entry) => [entry.kind, entry.holdId]), [['capture', holdId], ['hold', null]], 'exactly one hold for the key, captured')
  t.equal((await call('crashed')).headers['idempotent-replayed'], 'true')

  // The abandoned claim's hold was voided meanwhile: the takeover places one new hold.
  const voided = await abandon('crashed-and-swept')
  await app.ledger.holds.void(voided, null)
  await sleep(1100)
  t.equal((await call('crashed-and-swept')).statusCode, 200)
  const second = (await journalOf(app, wallet.id)).filter((entry) => entry.idempotencyKey === 'crashed-and-swept')
  t.same(second.map((entry) => entry.kind), ['capture', 'hold', 'void', 'hold'])
  t.equal(await balanceOf(app, wallet.id), 0.998, 'one price per key')
  const audit = await app.ledger.journal.audit(wallet.id)
  t.equal(audit?.balanceMicros, audit?.journalMicros)
})

test('the sweeper of every instance voids a hold nobody settled, and GET /api/wallet shows it', async (t) => {
  const app = await build(t, { env: { HOLD_SWEEP_INTERVAL_MS: '50' } })
  const wallet = await createWallet(app, 1)
  const placed = await app.ledger.holds.place({
    tokenHash: hashSecret(wallet.token), micros: 250_000, currency: 'USD', beeId: 'sentiment-analyzer', requestId: 'dead', claim: null, expiresInSeconds: 0.3
  })
  if (!placed.ok) throw new Error('hold refused')
  const own = async () => (await app.inject({ url: '/api/wallet', headers: { 'x-registry-wallet-token': wallet.token } })).json()
  t.match(await own(), { balance: 0.75, held: 0.25, recent: [{ kind: 'hold', amount: 0.25, holdId: null }] }, 'pending: shown as held')
  const deadline = Date.now() + 5000
  while ((await own()).held !== 0 && Date.now() < deadline) await sleep(50)
  t.match(await own(), {
    balance: 1,
    held: 0,
    recent: [{ kind: 'void', amount: 0.25, holdId: placed.holdId, requestId: null }, { kind: 'hold' }, { kind: 'deposit' }]
  }, 'voided by the sweeper and credited back')
})
