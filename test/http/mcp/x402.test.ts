import type { PaymentRequired } from '@x402/core/types'
import { test } from 'tap'
import { NETWORK, startFakeFacilitator } from '../../../examples/x402/facilitator.js'
import { newPayer, x402Env } from '../../x402-helper.js'
import { clients, listening } from './clients.js'

const input = { text: 'The honey this year is wonderful.' }

test('over MCP a tool\'s 402 carries the x402 offer, and a payment in _meta["x402/payment"] pays for the call once', async (t) => {
  const facilitator = await startFakeFacilitator()
  t.teardown(facilitator.close)
  const { url } = await listening(t, { env: x402Env(facilitator) })

  for (const [name, connect] of Object.entries(clients)) {
    const { client } = await connect(url)
    t.teardown(() => client.close())
    const unpaid = await client.callTool({ name: 'sentiment-analyzer', arguments: input })
    t.equal(unpaid.isError, true, name)
    // The text form is what every revision carries (x402's MCP transport reads it when structuredContent is absent).
    const body = JSON.parse(unpaid.content[0].text) as PaymentRequired & { code: string }
    t.equal(body.code, 'WALLET_TOKEN_MISSING', name)
    t.equal(body.x402Version, 2)
    t.same(body.resource, { url: 'mcp://tool/sentiment-analyzer', mimeType: 'application/json' })
    t.match(body.accepts, [{ scheme: 'exact', network: NETWORK, amount: '1000' }], `${name}: a real offer to pay`)

    const payer = newPayer()
    const payment = await payer.client.createPaymentPayload(body)
    const paid = await client.callTool({ name: 'sentiment-analyzer', arguments: input, _meta: { 'x402/payment': payment } })
    t.notOk(paid.isError, name)
    t.equal(paid.structuredContent?.sentiment ?? JSON.parse(paid.content[0].text).sentiment, 'positive')
    t.match(paid._meta?.['x402/payment-response'], { success: true, network: NETWORK, payer: payer.address }, `${name}: the settlement in _meta`)
    const settled = facilitator.settled.length

    const again = await client.callTool({ name: 'sentiment-analyzer', arguments: input, _meta: { 'x402/payment': payment } })
    t.equal(again._meta?.['ai.apiary/replayed'], true, `${name}: the same payment replays`)
    t.same(again._meta?.['x402/payment-response'], paid._meta?.['x402/payment-response'])
    t.equal(facilitator.settled.length, settled, `${name}: and is not settled again`)
  }
  t.equal(facilitator.settled.length, Object.keys(clients).length, 'one settlement per paid call, whatever the client')
})
