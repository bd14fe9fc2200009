import { test } from 'tap'
import { AgentCardResolver } from '@a2a-js/sdk/client'
import { startFakeBee } from '../../fake-bee.js'
import { beeBody, createPublisher, publish, shoutInput } from '../../publishing-helper.js'
import { beeMessage, connect, listening, send } from './clients.js'

const CARD = '/.well-known/agent-card.json'

test('the card, as the SDK reads it, describes the JSON-RPC endpoint, the wallet and each active Bee', async (t) => {
  const { app, base } = await listening(t)
  const card = await AgentCardResolver.default.resolve(base)
  t.equal(card.name, 'Apiary')
  t.ok(card.description.includes('X-Registry-Wallet-Token'), 'the description says how to pay')
  t.equal(card.version, '1.0.0')
  t.same(card.provider, { organization: 'Apiary', url: base })
  t.same(card.supportedInterfaces, [
    { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' }
  ], '1.0, preferred, and 0.3 beside it on the same endpoint')
  t.match(card.capabilities, { streaming: true, pushNotifications: true, extendedAgentCard: false })
  t.same(card.securitySchemes.walletToken?.scheme, {
    $case: 'apiKeySecurityScheme',
    value: { description: 'Token of a funded wallet; pay-per-use Bees charge it per call.', location: 'header', name: 'X-Registry-Wallet-Token' }
  })
  t.same(card.securityRequirements, [], 'free Bees need no credential')
  t.same(card.defaultInputModes, ['application/json'])
  t.same(card.defaultOutputModes, ['application/json'])

  const listed = (await app.inject({ method: 'GET', url: '/api/bees' })).json<{ bees: Array<Record<string, any>> }>().bees
  t.same(card.skills.map((skill) => skill.id), listed.map((bee) => bee.id), 'one skill per active Bee, in id order')
  for (const bee of listed) {
    const skill = card.skills.find((s) => s.id === bee.id)!
    t.equal(skill.name, bee.name, bee.id)
    t.ok(skill.description.startsWith(bee.description), `${bee.id}: its description`)
    t.same(skill.tags, [bee.category, bee.colony], `${bee.id}: tags from category and colony`)
    t.same(skill.inputModes, ['application/json'])
    const paid = bee.pricing.type === 'pay-per-use'
    t.same(skill.securityRequirements, paid ? [{ schemes: { walletToken: { list: [] } } }] : [], `${bee.id}: the wallet only where it is charged`)
    t.equal(skill.description.includes(`Costs ${bee.pricing.costPerCall} ${bee.pricing.currency} a call`), paid, `${bee.id}: the price`)
  }
})

test('a Bee published a second ago is a skill with its examples, callable at once; an inactive one is gone', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const { app, base } = await listening(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const before = await fetch(`${base}${CARD}`)
  const etag = before.headers.get('etag')!
  t.match(etag, /^"[\w-]+"$/, 'a strong ETag')
  t.equal((await fetch(`${base}${CARD}`, { headers: { 'if-none-match': etag } })).status, 304, 'unchanged: 304')

  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('shouter', fake.url, {
    inputSchema: { ...shoutInput, examples: [{ text: 'hello' }, { text: 'bees' }] }
  }))
  const after = await fetch(`${base}${CARD}`, { headers: { 'if-none-match': etag } })
  t.equal(after.status, 200, 'the registry changed: a new card')
  t.not(after.headers.get('etag'), etag)
  const card = AgentCardResolver.default.normalizeAgentCard!(await after.json())
  const skill = card.skills.find((s) => s.id === 'shouter')
  t.ok(skill, 'the new Bee is a skill')
  // Publishing keeps the first of `examples` as OpenAPI's `example`.
  t.same(skill?.examples.map((example) => JSON.parse(example)), [{ beeId: 'shouter', input: { text: 'hello' } }],
    'its schema\'s example, as the data part to send')
  t.same(skill?.tags, ['utility', 'loud'])

  const client = await connect(base)
  const example = JSON.parse(skill!.examples[0]!) as { beeId: string, input: unknown }
  const task = await send(client, beeMessage(example.beeId, example.input))
  t.equal('status' in task && task.status?.state, 3, 'an example works as printed: TASK_STATE_COMPLETED')

  const paused = await app.inject({ method: 'PATCH', url: '/api/bees/shouter', headers: publisher.headers, payload: { status: 'inactive' } })
  t.equal(paused.statusCode, 200, 'made inactive')
  const last = AgentCardResolver.default.normalizeAgentCard!(await (await fetch(`${base}${CARD}`)).json())
  t.notOk(last.skills.some((s) => s.id === 'shouter'), 'an inactive Bee is not advertised')
})

test('the card names the origin it was reached at, behind a gateway too', async (t) => {
  const { base } = await listening(t)
  const card = await (await fetch(`${base}${CARD}`, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'bees.example.com' } })).json() as Record<string, any>
  t.equal(card.supportedInterfaces[0].url, 'https://bees.example.com/a2a')
  const direct = await (await fetch(`${base}${CARD}`)).json() as Record<string, any>
  t.equal(direct.supportedInterfaces[0].url, `${base}/a2a`, 'each origin its own card')
})
