import type { AddressInfo } from 'node:net'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { test } from 'tap'
import { startFakeBee } from '../../fake-bee.js'
import { NETWORK, PAY_TO, startFakeFacilitator, USDC } from '../../../examples/x402/facilitator.js'
import { adminHeaders, build, createWallet } from '../../helper.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'
import { newPayer, offerOf, x402Env } from '../../x402-helper.js'

type Teardown = Parameters<typeof build>[0]

const sentiment = '/api/bees/sentiment-analyzer/execute'
const input = { text: 'The honey this year is wonderful.' }

async function setup (t: Teardown, env: Record<string, string> = {}) {
  const facilitator = await startFakeFacilitator()
  t.teardown(facilitator.close)
  const app = await build(t, { env: { ...x402Env(facilitator), EGRESS_ALLOWLIST: '127.0.0.1', ...env } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
  return { app, base, facilitator, post }
}

/** The offer of a first, unpaid call, and a payment for it signed by a new payer. */
async function signedPayment (post: Awaited<ReturnType<typeof setup>>['post'], path = sentiment, body: unknown = input) {
  const payer = newPayer()
  const unpaid = await post(path, body)
  const { header } = await payer.sign(offerOf(unpaid.headers.get('payment-required') ?? undefined))
  return { payer, header }
}

test('a 402 of a pay-per-use Bee carries an exact x402 offer for its price next to the spec\'s body', async (t) => {
  const { post, base } = await setup(t)
  const response = await post(sentiment, input)
  t.equal(response.status, 402)
  const body = await response.json() as Record<string, any>
  t.match(body, { error: 'Payment Required', code: 'WALLET_TOKEN_MISSING', transactionDetails: { beeId: 'sentiment-analyzer', cost: 0.001, currency: 'USD', requiredHeader: 'X-Registry-Wallet-Token' } })
  t.match(body.transactionDetails.x402, /PAYMENT-REQUIRED/, 'the body points an agent to the header')
  const offer = offerOf(response.headers.get('payment-required') ?? undefined)
  t.same(offer.resource, { url: `${base}${sentiment}`, mimeType: 'application/json' })
  t.equal(offer.x402Version, 2)
  t.type(offer.error, 'string')
  t.equal(offer.accepts.length, 1)
  t.match(offer.accepts[0], {
    scheme: 'exact',
    network: NETWORK,
    asset: USDC,
    // 0.001 USD in USDC's 6 decimals.
    amount: '1000',
    payTo: PAY_TO,
    maxTimeoutSeconds: 300,
    extra: { name: 'USDC', version: '2' }
  })

  const wallet = await post(sentiment, input, { 'x-registry-wallet-token': 'no-such-wallet' })
  t.equal(wallet.status, 402)
  t.ok(wallet.headers.get('payment-required'), 'every 402 of the Bee carries the offer, whatever the wallet problem')
  const free = await post('/api/bees/text-summarizer/execute', { text: 'One sentence about bees.' })
  t.equal(free.status, 200, 'a free Bee is not for sale')
  t.equal(free.headers.get('payment-required'), null)
})

test('the real x402 client pays for a call: verified, run, settled once, journaled, PAYMENT-RESPONSE on the 200', async (t) => {
  const { app, base, facilitator } = await setup(t)
  const payer = newPayer()
  const response = await payer.fetch(`${base}${sentiment}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input)
  })
  t.equal(response.status, 200)
  const honey = await response.json() as Record<string, any>
  t.equal(honey.beeId, 'sentiment-analyzer')
  t.equal(honey.result.sentiment, 'positive')
  const settlement = decodePaymentResponseHeader(response.headers.get('payment-response') as string)
  t.match(settlement, { success: true, network: NETWORK, payer: payer.address })
  t.equal(facilitator.settled.length, 1, 'settled once')
  t.match(facilitator.settled[0], { payer: payer.address, amount: '1000', transaction: settlement.transaction })
  t.equal(response.headers.get('x-registry-cost'), null, 'no wallet was charged')

  const journal = await app.inject({ method: 'GET', url: '/api/x402/settlements', headers: adminHeaders })
  t.equal(journal.statusCode, 200)
  t.match(journal.json().settlements, [{
    beeId: 'sentiment-analyzer', network: NETWORK, asset: USDC, amount: '1000', payTo: PAY_TO, payer: payer.address, transaction: settlement.transaction
  }])
  const anonymous = await app.inject({ method: 'GET', url: '/api/x402/settlements' })
  t.equal(anonymous.statusCode, 401, 'the journal is the operator\'s')
})

test('the same payment sent again replays its answer and is never settled twice; for another call it is refused', async (t) => {
  const { post, facilitator } = await setup(t)
  const { header } = await signedPayment(post)
  const first = await post(sentiment, input, { 'payment-signature': header })
  t.equal(first.status, 200)
  const again = await post(sentiment, input, { 'payment-signature': header })
  t.equal(again.status, 200)
  t.equal(again.headers.get('idempotent-replayed'), 'true')
  t.equal(await again.text(), await first.text(), 'the same answer, byte for byte')
  t.equal(again.headers.get('payment-response'), first.headers.get('payment-response'), 'with the settlement that paid for it')
  t.equal(facilitator.settled.length, 1, 'settled once')

  const other = await post(sentiment, { text: 'Another call entirely.' }, { 'payment-signature': header })
  t.equal(other.status, 402)
  t.equal((await other.json() as { code: string }).code, 'X402_PAYMENT_USED')
  t.ok(other.headers.get('payment-required'), 'with a fresh offer to pay')
  t.equal(facilitator.settled.length, 1)
})

test('the same payment sent twice at once runs and settles once', async (t) => {
  const { post, facilitator } = await setup(t)
  const { header } = await signedPayment(post)
  const answers = await Promise.all([1, 2, 3].map(() => post(sentiment, input, { 'payment-signature': header })))
  const statuses = answers.map((answer) => answer.status).sort()
  t.ok(statuses.every((status) => status === 200 || status === 409), `only answers and conflicts: ${statuses.join(', ')}`)
  t.ok(statuses.includes(200))
  t.equal(facilitator.settled.length, 1)
})

test('a payment the facilitator refuses is a 402 with the reason and a new offer; nothing runs or settles', async (t) => {
  const { post, facilitator } = await setup(t)
  const { header } = await signedPayment(post)
  const tampered = JSON.parse(Buffer.from(header, 'base64').toString())
  // A bigger amount than was signed: the signature no longer matches.
  tampered.payload.authorization.value = '999999'
  const refused = await post(sentiment, input, { 'payment-signature': Buffer.from(JSON.stringify(tampered)).toString('base64') })
  t.equal(refused.status, 402)
  const body = await refused.json() as { code: string, message: string }
  t.equal(body.code, 'X402_PAYMENT_INVALID')
  t.match(body.message, /signature/)
  t.ok(refused.headers.get('payment-required'))

  const garbage = await post(sentiment, input, { 'payment-signature': 'not base64 json' })
  t.equal(garbage.status, 402)
  t.equal((await garbage.json() as { code: string }).code, 'X402_PAYMENT_INVALID')
  t.equal(facilitator.settled.length, 0)
})

/** A publisher's pay-per-use Bee on a fake upstream, and a signed payment for one call of it. */
async function paidShouter (t: Teardown) {
  const bee = await startFakeBee()
  t.teardown(bee.close)
  const { app, post, facilitator } = await setup(t)
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('shouter', bee.url, { pricing: { type: 'pay-per-use', costPerCall: 0.25 } }))
  const { header } = await signedPayment(post, '/api/bees/shouter/execute', { text: 'hey' })
  return { bee, post, facilitator, header }
}

test('with the facilitator down a paid call is 503 and its Bee does not run', async (t) => {
  const { bee, post, facilitator, header } = await paidShouter(t)
  await facilitator.close()
  const response = await post('/api/bees/shouter/execute', { text: 'hey' }, { 'payment-signature': header })
  t.equal(response.status, 503)
  t.equal((await response.json() as { code: string }).code, 'X402_FACILITATOR_UNAVAILABLE')
  t.equal(bee.calls.length, 0, 'the Bee was not run')
})

test('a Bee that fails is verified but never settled; the payment can be retried', async (t) => {
  const { bee, post, facilitator, header } = await paidShouter(t)
  bee.mode = 'error'
  const failed = await post('/api/bees/shouter/execute', { text: 'hey' }, { 'payment-signature': header })
  t.equal(failed.status, 502)
  t.equal(facilitator.verifies, 1, 'the payment was verified before the Bee ran')
  t.equal(facilitator.settled.length, 0, 'and not settled when it failed')

  bee.mode = 'ok'
  const retried = await post('/api/bees/shouter/execute', { text: 'hey' }, { 'payment-signature': header })
  t.equal(retried.status, 200, 'the unsettled payment still pays for the retry')
  t.same((await retried.json() as { result: unknown }).result, { shout: 'HEY', length: 3 })
  t.match(facilitator.settled, [{ amount: '250000' }])
})

test('a settlement the facilitator refuses serves nothing; one it never answers is 502 and not retried at once', async (t) => {
  const { post, facilitator } = await setup(t, { X402_FACILITATOR_TIMEOUT_MS: '1500' })
  const refused = await signedPayment(post)
  facilitator.settleMode = 'refuse'
  const response = await post(sentiment, input, { 'payment-signature': refused.header })
  t.equal(response.status, 402)
  t.equal((await response.json() as { code: string }).code, 'X402_SETTLEMENT_FAILED')

  facilitator.settleMode = 'hang'
  const unknown = await signedPayment(post)
  const hung = await post(sentiment, input, { 'payment-signature': unknown.header })
  t.equal(hung.status, 502)
  t.equal((await hung.json() as { code: string }).code, 'X402_SETTLEMENT_UNKNOWN')
  const retry = await post(sentiment, input, { 'payment-signature': unknown.header })
  t.equal(retry.status, 409, 'the payment stays claimed until its lease ends: it may have settled')
  t.equal(facilitator.settled.length, 0)
})

test('a wallet token wins over a payment: the wallet pays and the payment is left unsettled', async (t) => {
  const { app, post, facilitator } = await setup(t)
  const wallet = await createWallet(app, 1)
  const { header } = await signedPayment(post)
  const response = await post(sentiment, input, { 'payment-signature': header, 'x-registry-wallet-token': wallet.token })
  t.equal(response.status, 200)
  t.equal(response.headers.get('x-registry-cost'), '0.001')
  t.equal(response.headers.get('payment-response'), null)
  t.equal(facilitator.verifies, 0)
})

test('without x402 configured a 402 has no offer and a payment is ignored', async (t) => {
  const app = await build(t)
  const response = await app.inject({ method: 'POST', url: sentiment, payload: input, headers: { 'payment-signature': 'anything' } })
  t.equal(response.statusCode, 402)
  t.equal(response.headers['payment-required'], undefined)
  t.equal(response.json().code, 'WALLET_TOKEN_MISSING')
  t.equal(response.json().transactionDetails.x402, undefined)
})

test('the OpenAPI document describes the x402 headers when x402 is on', async (t) => {
  const { app } = await setup(t)
  const document = (await app.inject({ method: 'GET', url: '/openapi/openapi.json' })).json()
  const operation = document.paths['/api/bees/sentiment-analyzer/execute'].post
  t.ok(operation.parameters.some((parameter: { $ref: string }) => parameter.$ref === '#/components/parameters/payment-signature'))
  t.match(document.components.parameters['payment-signature'], { in: 'header', name: 'payment-signature' })
  // Every paid execute route gives the same 402: one shared response.
  const paymentRequired = document.components.responses[operation.responses['402'].$ref.split('/').pop()]
  t.ok(paymentRequired.headers['payment-required'])
  const codes: string[] = paymentRequired.content['application/json'].schema.allOf[1].properties.code.enum
  t.ok(codes.includes('WALLET_TOKEN_MISSING') && codes.includes('X402_PAYMENT_USED'), 'the 402 lists the wallet and the x402 codes')
  t.ok(operation.responses['200'].headers['payment-response'])
  t.ok(document.components.headers['payment-required'].description)
  t.ok(document.paths['/api/x402/settlements'].get)
})
