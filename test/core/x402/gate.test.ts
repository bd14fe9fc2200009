import pino from 'pino'
import { test } from 'tap'
import type { RegisteredBee } from '../../../src/core/registry.js'
import { X402Gate, type X402Settings } from '../../../src/core/x402/gate.js'
import { NETWORK, PAY_TO, startFakeFacilitator, USDC } from '../../../examples/x402/facilitator.js'

const log = pino({ level: 'silent' })
const bee = (priceMicros: number, currency = 'USD', paid = true) => ({ paid, priceMicros, plan: null, record: { pricing: { currency } } }) as unknown as RegisteredBee

const settings = (facilitatorUrl: string, extra: Partial<X402Settings> = {}): X402Settings => ({
  facilitatorUrl,
  network: NETWORK,
  payTo: PAY_TO,
  asset: undefined,
  assetName: undefined,
  assetVersion: undefined,
  assetDecimals: 6,
  maxTimeoutSeconds: 120,
  facilitatorTimeoutMs: 1000,
  ...extra
})

test('an offer is the Bee\'s price in the asset\'s atomic units, for USD-priced pay-per-use Bees only', async (t) => {
  const facilitator = await startFakeFacilitator()
  t.teardown(facilitator.close)
  const gate = await X402Gate.open(settings(facilitator.url), log)
  const offer = await gate.offer(bee(2500), 'https://apiary.example/api/bees/x/execute', 'pay')
  t.match(offer?.accepts, [{ scheme: 'exact', network: NETWORK, asset: USDC, amount: '2500', payTo: PAY_TO, maxTimeoutSeconds: 120 }])
  t.equal(await gate.offer(bee(2500, 'EUR'), 'r', 'pay'), null, 'a USD stablecoin does not pay a EUR price')
  t.equal(await gate.offer(bee(0, 'USD', false), 'r', 'pay'), null, 'a free Bee is not for sale')

  const token = `0x${'cd'.repeat(20)}`
  const eighteen = await X402Gate.open(settings(facilitator.url, { asset: token, assetName: 'Dollar', assetVersion: '1', assetDecimals: 18 }), log)
  t.match((await eighteen.offer(bee(2500), 'r', 'pay'))?.accepts, [{ asset: token, amount: '2500000000000000', extra: { name: 'Dollar', version: '1' } }],
    'an 18-decimal token: micro-units times 10^12, exactly')
})

test('an asset the library does not know needs its EIP-712 domain; an unreachable facilitator means no offer, not an error', async (t) => {
  await t.rejects(X402Gate.open(settings('http://127.0.0.1:9', { asset: `0x${'cd'.repeat(20)}` }), log), /X402_ASSET_NAME and X402_ASSET_VERSION/)
  const gate = await X402Gate.open(settings('http://127.0.0.1:9'), log)
  t.equal(await gate.offer(bee(1000), 'r', 'pay'), null)
})
