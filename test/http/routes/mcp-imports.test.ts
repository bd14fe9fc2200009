import { TaskState, type Task } from '@a2a-js/sdk'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { MCP_TOKEN, startFakeMcpServer } from '../../fake-mcp-server.js'
import { balanceOf, build, createWallet, execute } from '../../helper.js'
import { createPublisher } from '../../publishing-helper.js'
import { within } from '../../within.js'
import { beeMessage, connect, listening as a2aListening, send } from '../a2a/clients.js'
import { clients } from '../mcp/clients.js'

type Build = Parameters<typeof build>[0]

async function setup (t: Build, env: Record<string, string> = {}, logLines?: string[]) {
  const upstream = await startFakeMcpServer()
  t.teardown(upstream.close)
  const { app, base } = await a2aListening(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1', REMOTE_BEE_TIMEOUT_MS: '3000', ...env }, ...(logLines === undefined ? {} : { logLines }) })
  const publisher = await createPublisher(app)
  return { app, base, upstream, publisher }
}

const post = async (app: FastifyInstance, url: string, headers: Record<string, string>, payload: object) =>
  await app.inject({ method: 'POST', url, headers, payload })

const imported = async (app: FastifyInstance, headers: Record<string, string>, serverUrl: string) =>
  await post(app, '/api/imports', headers, {
    source: { mcpServer: serverUrl },
    idPrefix: 'calc',
    credential: MCP_TOKEN,
    operations: [{ tool: 'add', priceMicros: 10_000 }, { tool: 'echo', priceMicros: 0 }]
  })

const beeOf = async (app: FastifyInstance, id: string) => (await app.inject(`/api/bees/${id}`)).json()

test('an MCP server\'s tools preview as Bees: schemas from the tool, checks passed', async (t) => {
  const { app, upstream, publisher } = await setup(t)
  const preview = await post(app, '/api/imports/preview', publisher.headers, { source: { mcpServer: upstream.url }, idPrefix: 'calc', credential: MCP_TOKEN })
  t.equal(preview.statusCode, 200, preview.body)
  const [add, echo] = preview.json().operations as Array<Record<string, any>>
  t.match(add, {
    id: 'calc-add',
    name: 'Add two numbers',
    description: 'Adds a and b.',
    tool: 'add',
    operationId: null,
    inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { properties: { sum: { type: 'number' } } },
    mapping: { kind: 'mcp', serverUrl: upstream.url, tool: 'add', output: 'structured', credential: { in: 'bearer' } },
    importable: true
  })
  t.match(echo, { id: 'calc-echo', outputSchema: { required: ['text', 'content'] }, mapping: { output: 'content' }, importable: true }, 'without an outputSchema: the documented content shape')
  t.equal(upstream.calls.length, 0, 'a preview calls no tool')

  const keyless = await post(app, '/api/imports/preview', publisher.headers, { source: { mcpServer: upstream.url } })
  t.equal(keyless.statusCode, 400)
  t.equal(keyless.json().code, 'IMPORT_SOURCE_UNREADABLE', 'a server that wants a credential is unreadable without one')
})

test('an imported tool is called over HTTP, MCP and A2A through a pooled session, paid as any Bee', async (t) => {
  const logLines: string[] = []
  const { app, base, upstream, publisher } = await setup(t, {}, logLines)
  const applied = await imported(app, publisher.headers, upstream.url)
  t.equal(applied.statusCode, 201, applied.body)
  t.match(applied.json().bees, [{ id: 'calc-add', pricing: { type: 'pay-per-use', costPerCall: 0.01 }, upstreamEndpoint: upstream.url }, { id: 'calc-echo' }])

  const wallet = await createWallet(app, 1)
  const overHttp = await execute(app, 'calc-add', { a: 2, b: 3 }, wallet.token)
  t.equal(overHttp.statusCode, 200, overHttp.body)
  t.match(overHttp.json(), { beeId: 'calc-add', result: { sum: 5 } }, 'structuredContent is the result')
  t.same(upstream.calls.at(-1)?.arguments, { a: 2, b: 3 })
  t.equal(upstream.calls.at(-1)?.headers.authorization, `Bearer ${MCP_TOKEN}`, 'the sealed credential is sent')
  t.equal(await balanceOf(app, wallet.id), 0.99)

  const echoed = await execute(app, 'calc-echo', { text: 'hi' })
  t.match(echoed.json(), { result: { text: 'hi', content: [{ type: 'text', text: 'hi' }] } }, 'no outputSchema: the content shape')

  const { client } = await clients['v2 client, 2025 handshake']!(new URL(`${base}/mcp`), { 'x-registry-wallet-token': wallet.token })
  t.teardown(async () => await client.close())
  const overMcp = await client.callTool({ name: 'calc-add', arguments: { a: 1, b: 1 } })
  t.match(overMcp, { structuredContent: { sum: 2 } }, 'over MCP')

  const a2a = await connect(base)
  const task = await send(a2a, beeMessage('calc-add', { a: 4, b: 5 }), { 'X-Registry-Wallet-Token': wallet.token }) as Task
  t.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED)
  const content = task.artifacts[0]?.parts[0]?.content
  t.match(content?.$case === 'data' ? content.value : null, { result: { sum: 9 } }, 'over A2A')
  t.equal(await balanceOf(app, wallet.id), 0.97, 'each paid call captured once')
  t.equal(upstream.sessionsOpened, 2, 'the preview\'s session and one pooled session for every call')

  await upstream.forgetSessions()
  t.match((await execute(app, 'calc-add', { a: 1, b: 2 }, wallet.token)).json(), { result: { sum: 3 } }, 'a session the server forgot is opened again')

  upstream.tools[0] = { tool: upstream.tools[0]!.tool, answer: () => ({ content: [{ type: 'text', text: 'overflow' }], isError: true }) }
  const failed = await execute(app, 'calc-add', { a: 1, b: 2 }, wallet.token)
  t.equal(failed.statusCode, 502)
  t.equal(failed.json().code, 'BEE_UPSTREAM_ERROR', 'a tool\'s error is an upstream error')
  t.equal(await balanceOf(app, wallet.id), 0.96, 'and is not charged')

  const shown = [applied.body, (await app.inject({ url: '/api/bees/calc-add', headers: publisher.headers })).body]
  t.notOk(shown.some((body) => body.includes(MCP_TOKEN)), 'no answer shows the credential')
  t.notOk(logLines.some((line) => line.includes(MCP_TOKEN)), 'no log line holds the credential')
})

test('a tool removed upstream makes its Bee inactive; a changed one makes a new version, a breaking one a new major', async (t) => {
  const { app, upstream, publisher } = await setup(t)
  t.equal((await imported(app, publisher.headers, upstream.url)).statusCode, 201)
  t.match((await execute(app, 'calc-echo', { text: 'x' })).json(), { result: { text: 'x' } }, 'the first call opens the pooled session')

  const [add, echo] = upstream.tools
  upstream.tools = [add!]
  await upstream.toolsChanged()
  t.not(await within(5000, async () => (await beeOf(app, 'calc-echo')).status === 'inactive'), null, 'list_changed: the gone tool\'s Bee is inactive')
  t.match(await beeOf(app, 'calc-echo'), { statusMessage: /no longer listed/ })

  const addTool = add!.tool
  upstream.tools = [
    { ...add!, tool: { ...addTool, description: 'Adds a and b, optionally c.', inputSchema: { ...addTool.inputSchema, properties: { ...addTool.inputSchema.properties, c: { type: 'number' } } } } },
    echo!
  ]
  await upstream.toolsChanged()
  t.not(await within(5000, async () => (await beeOf(app, 'calc-add')).version === '1.1.0'), null, 'a compatible change is a new minor')
  t.equal((await beeOf(app, 'calc-echo')).status, 'active', 'a tool back upstream makes its Bee active again')

  upstream.tools = [{ ...upstream.tools[0]!, tool: { ...addTool, inputSchema: { ...addTool.inputSchema, required: ['a', 'b', 'c'], properties: { ...addTool.inputSchema.properties, c: { type: 'number' } } } } }, echo!]
  await upstream.toolsChanged()
  t.not(await within(5000, async () => (await beeOf(app, 'calc-add')).version === '2.0.0'), null, 'a newly required input is a new major')
  const versions = (await app.inject('/api/bees/calc-add/versions')).json()
  t.match(versions, { versions: [{ version: '2.0.0' }, { version: '1.1.0' }, { version: '1.0.0' }] })
  const wallet = await createWallet(app, 1)
  const pinned = await execute(app, 'calc-add', { a: 1, b: 2 }, wallet.token, { 'bee-version': '1' })
  t.equal(pinned.statusCode, 200, 'a caller pinned to 1 is still validated against version 1')
  t.equal((await execute(app, 'calc-add', { a: 1, b: 2 }, wallet.token)).json().code, 'VALIDATION_FAILED', 'an unpinned one against 2')
})

test('the schedule re-reads the servers too (MCP_REREAD_SECONDS)', async (t) => {
  const { app, upstream, publisher } = await setup(t, { MCP_REREAD_SECONDS: '1' })
  t.equal((await imported(app, publisher.headers, upstream.url)).statusCode, 201)
  upstream.tools = upstream.tools.slice(0, 1)
  t.not(await within(5000, async () => (await beeOf(app, 'calc-echo')).status === 'inactive'), null, 'without a notification')
})

test('a tool\'s answer larger than REMOTE_BEE_MAX_RESPONSE_BYTES is refused, not charged', async (t) => {
  const { app, upstream, publisher } = await setup(t, { REMOTE_BEE_MAX_RESPONSE_BYTES: '2000' })
  t.equal((await imported(app, publisher.headers, upstream.url)).statusCode, 201)
  const wallet = await createWallet(app, 1)
  upstream.tools[0] = { tool: upstream.tools[0]!.tool, answer: () => ({ structuredContent: { sum: 1, padding: 'x'.repeat(5000) }, content: [] }) }
  const large = await execute(app, 'calc-add', { a: 1, b: 2 }, wallet.token)
  t.equal(large.statusCode, 502, large.body)
  t.equal(large.json().code, 'BEE_RESPONSE_TOO_LARGE')
  t.equal(await balanceOf(app, wallet.id), 1)
})

test('MCP_REREAD_SECONDS must be a whole number of seconds', async (t) => {
  await t.rejects(build(t, { env: { MCP_REREAD_SECONDS: 'soon' } }), /MCP_REREAD_SECONDS/)
})

test('an MCP server at a private address is refused by the egress guard', async (t) => {
  const upstream = await startFakeMcpServer()
  t.teardown(upstream.close)
  const app = await build(t)
  const publisher = await createPublisher(app)
  for (const url of [upstream.url, 'http://169.254.169.254/mcp', 'https://10.0.0.1/mcp']) {
    const refused = await post(app, '/api/imports/preview', publisher.headers, { source: { mcpServer: url }, credential: MCP_TOKEN })
    t.equal(refused.statusCode, 400, url)
    t.equal(refused.json().code, 'IMPORT_SOURCE_FORBIDDEN', url)
  }
  t.equal(upstream.sessionsOpened, 0, 'nothing reached the server')
})
