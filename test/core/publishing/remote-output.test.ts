import { test } from 'tap'
import { balanceOf, build, createWallet } from '../../helper.js'
import { startFakeBee } from '../../fake-bee.js'
import { beeBody, createPublisher, publish, shoutOutput } from '../../publishing-helper.js'

// An outputSchema that lets anything through under "extra", as a publisher may declare.
const permissiveOutput = { ...shoutOutput, properties: { ...shoutOutput.properties, extra: {} } }

test('a paid published Bee whose answer Apiary cannot serve is a 502 and the charge is refunded', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('odd-shouter', fake.url, {
    outputSchema: permissiveOutput, pricing: { type: 'pay-per-use', costPerCall: 0.01 }
  }))
  const wallet = await createWallet(app, 1)
  const call = () => app.inject({
    method: 'POST', url: '/api/bees/odd-shouter/execute', payload: { text: 'hi' }, headers: { 'x-registry-wallet-token': wallet.token }
  })

  for (const mode of ['not-object', 'too-deep', 'far-too-deep'] as const) {
    fake.mode = mode
    const response = await call()
    t.equal(response.statusCode, 502, mode)
    t.equal(response.json().code, 'BEE_OUTPUT_INVALID', mode)
    t.equal(await balanceOf(app, wallet.id), 1, `${mode}: refunded`)
  }
  fake.mode = 'ok'
  const ok = await call()
  t.equal(ok.statusCode, 200, 'a good answer still goes through')
  t.same(ok.json().result, { shout: 'HI', length: 2 })
  t.equal(ok.headers['x-registry-balance'], '0.99')
  const audit = await app.ledger.journal.audit(wallet.id)
  t.equal(audit?.balanceMicros, audit?.journalMicros, 'the journal agrees')
})
