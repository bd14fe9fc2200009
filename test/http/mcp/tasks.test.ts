import type { AddressInfo } from 'node:net'
import { Client, specTypeSchemas, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import { backends } from '../../databases.js'
import { balanceOf, createWallet } from '../../helper.js'
import { beeBody, publish, publishingSetup } from '../../publishing-helper.js'
import { within } from '../../within.js'

/** How long the slow upstream takes. */
const UPSTREAM_MS = 1500

const RELATED_TASK = 'io.modelcontextprotocol/related-task'

const kinds = async (app: FastifyInstance, walletId: string) => (await app.ledger.journal.recent(walletId, 100)).map((entry) => entry.kind).sort()

async function v1Client (url: URL, headers: Record<string, string> = {}) {
  const client = new V1Client({ name: 'apiary-test', version: '1.0.0' })
  await client.connect(new V1Transport(url, { requestInit: { headers } }))
  return client
}

/** The 2.x client, on the 2025 handshake (tasks are 2025-11-25's): task methods are sent with their result schemas. */
async function v2Client (url: URL, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'apiary-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }))
  return client
}

for (const backend of backends) {
  test(`an async Bee over MCP tasks on ${backend.name}: the 1.x and 2.x clients get the result through a task, charged once`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const { app, fake, publisher } = await publishingSetup(t, { DATABASE_URL: database.url, RUN_POLL_MS: '50', RUN_LEASE_SECONDS: '3' })
    await app.listen({ port: 0, host: '127.0.0.1' })
    const url = new URL(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`)
    const paid = { type: 'pay-per-use', costPerCall: 0.25 }
    await publish(app, publisher.headers, beeBody('slow-shouter', fake.url, { pricing: paid, config: { executionMode: 'async', maxRunSeconds: 60 } }))
    await publish(app, publisher.headers, beeBody('free-slow', fake.url, { config: { executionMode: 'async' } }))
    await publish(app, publisher.headers, beeBody('quick', fake.url))
    let release = () => {}
    fake.beforeAnswer = async () => await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, UPSTREAM_MS)
      release = () => { clearTimeout(timer); resolve() }
    })
    t.teardown(() => release())

    await t.test('initialize advertises tasks for tools/call, and an async Bee\'s tool may be called as one', async (t) => {
      const client = await v1Client(url)
      t.teardown(() => client.close())
      t.same(client.getServerCapabilities()?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } })
      const { tools } = await client.listTools()
      t.same(tools.find((tool) => tool.name === 'slow-shouter')?.execution, { taskSupport: 'optional' })
      t.equal(tools.find((tool) => tool.name === 'quick')?.execution, undefined, 'a sync Bee is called as a plain tool')
    })

    await t.test('the 1.x client\'s callToolStream: a task at once, then the result; one hold, one capture', async (t) => {
      const wallet = await createWallet(app, 1)
      const client = await v1Client(url, { 'X-Registry-Wallet-Token': wallet.token })
      t.teardown(() => client.close())
      const kindsSeen: string[] = []
      let result: Record<string, any> | undefined
      const started = Date.now()
      for await (const message of client.experimental.tasks.callToolStream({ name: 'slow-shouter', arguments: { text: 'hi' } }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
        kindsSeen.push(message.type)
        if (message.type === 'taskCreated') {
          t.match(message.task, { taskId: /^run_[0-9a-f]{32}$/, status: 'working', pollInterval: 1000 })
          t.ok(Date.now() - started < UPSTREAM_MS, 'the task came before the upstream answered')
          t.equal(await balanceOf(app, wallet.id), 0.75, 'held at admission')
        }
        if (message.type === 'result') result = message.result
        if (message.type === 'error') t.fail(String(message.error))
      }
      t.equal(kindsSeen[0], 'taskCreated')
      t.equal(kindsSeen.at(-1), 'result')
      t.same(result?.structuredContent, { shout: 'HI', length: 2 })
      t.match(result?._meta, { 'ai.apiary/beeId': 'slow-shouter', [RELATED_TASK]: { taskId: /^run_/ } })
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
      t.equal(await balanceOf(app, wallet.id), 0.75)
    })

    await t.test('the 2.x client: tools/call with a task, tasks/get until completed, tasks/result, tasks/list', async (t) => {
      const wallet = await createWallet(app, 1)
      const client = await v2Client(url, { 'X-Registry-Wallet-Token': wallet.token })
      t.teardown(() => client.close())
      const created = await client.request({ method: 'tools/call', params: { name: 'slow-shouter', arguments: { text: 'bee' }, task: { ttl: 60_000 } } } as never,
        specTypeSchemas.CreateTaskResult)
      const { taskId } = created.task
      t.equal(created.task.status, 'working')
      const get = async () => await client.request({ method: 'tasks/get', params: { taskId } } as never, specTypeSchemas.GetTaskResult)
      t.not(await within(UPSTREAM_MS + 10_000, async () => (await get()).status === 'completed'), null, 'completed')
      const result = await client.request({ method: 'tasks/result', params: { taskId } } as never, specTypeSchemas.CallToolResult)
      t.same(result.structuredContent, { shout: 'BEE', length: 3 })
      t.same(result._meta?.[RELATED_TASK], { taskId })
      const listed = await client.request({ method: 'tasks/list', params: {} } as never, specTypeSchemas.ListTasksResult)
      t.same(listed.tasks.map((task) => task.taskId), [taskId], 'the caller\'s own tasks')
      t.same(await kinds(app, wallet.id), ['capture', 'deposit', 'hold'])
    })

    await t.test('the same Idempotency-Key gives back the same task, held once; a task the wallet cannot pay is a tool error', async (t) => {
      const wallet = await createWallet(app, 1)
      const client = await v2Client(url, { 'X-Registry-Wallet-Token': wallet.token })
      t.teardown(() => client.close())
      const call = async (name: string) => await client.request({
        method: 'tools/call', params: { name, arguments: { text: 'hi' }, task: {}, _meta: { 'ai.apiary/idempotencyKey': 'task-key-1' } }
      } as never, specTypeSchemas.CreateTaskResult)
      const first = await call('slow-shouter')
      const second = await call('slow-shouter')
      t.equal(second.task.taskId, first.task.taskId)
      t.equal(await balanceOf(app, wallet.id), 0.75, 'held once')
      release()
      const broke = await createWallet(app, 0)
      const poor = await v2Client(url, { 'X-Registry-Wallet-Token': broke.token })
      t.teardown(() => poor.close())
      const refused = await poor.request({ method: 'tools/call', params: { name: 'slow-shouter', arguments: { text: 'hi' }, task: {} } } as never,
        specTypeSchemas.CallToolResult)
      t.equal(refused.isError, true)
      t.match(JSON.parse((refused.content[0] as { text: string }).text), { code: 'INSUFFICIENT_FUNDS' })
    })

    await t.test('tasks/cancel voids the hold; an ended task cannot be cancelled; another caller finds no task', async (t) => {
      const wallet = await createWallet(app, 1)
      const client = await v1Client(url, { 'X-Registry-Wallet-Token': wallet.token })
      t.teardown(() => client.close())
      const stream = client.experimental.tasks.callToolStream({ name: 'slow-shouter', arguments: { text: 'hi' } }, CallToolResultSchema, { task: {} })
      const first = await stream.next()
      await stream.return(undefined)
      const taskId = (first.value as { task: { taskId: string } }).task.taskId
      t.not(await within(5000, async () => (await app.ledger.runs.get(taskId))?.status === 'running'), null)
      const cancelled = await client.experimental.tasks.cancelTask(taskId)
      t.equal(cancelled.status, 'cancelled')
      t.equal(await balanceOf(app, wallet.id), 1, 'the hold was voided')
      t.same(await kinds(app, wallet.id), ['deposit', 'hold', 'void'])
      await t.rejects(client.experimental.tasks.cancelTask(taskId), { code: -32602 }, 'already cancelled')
      release()

      const stranger = await createWallet(app, 1)
      const other = await v1Client(url, { 'X-Registry-Wallet-Token': stranger.token })
      t.teardown(() => other.close())
      const refused = await other.experimental.tasks.getTask(taskId).catch((error: unknown) => error)
      t.ok(refused instanceof McpError)
      t.match(refused, { code: -32602, data: { code: 'RUN_NOT_FOUND' } })
      t.same((await other.experimental.tasks.listTasks()).tasks, [], 'nor lists it')
    })

    await t.test('a free Bee\'s task, started without a wallet, is found by its task id alone, which carries its run key', async (t) => {
      const client = await v2Client(url)
      t.teardown(() => client.close())
      const created = await client.request({ method: 'tools/call', params: { name: 'free-slow', arguments: { text: 'ok' }, task: {} } } as never,
        specTypeSchemas.CreateTaskResult)
      const { taskId } = created.task
      t.match(taskId, /^run_[0-9a-f]{32}\.rk_/)
      release()
      const result = await client.request({ method: 'tasks/result', params: { taskId } } as never, specTypeSchemas.CallToolResult)
      t.same(result.structuredContent, { shout: 'OK', length: 2 }, 'tasks/result waits for the run')
      await t.rejects(client.request({ method: 'tasks/get', params: { taskId: taskId.split('.')[0] } } as never, specTypeSchemas.GetTaskResult),
        { code: -32602 }, 'not without its key')
      t.same((await client.request({ method: 'tasks/list', params: {} } as never, specTypeSchemas.ListTasksResult)).tasks, [], 'no wallet, no list')
    })

    await t.test('a sync Bee called with a task is answered as a plain call', async (t) => {
      const client = await v2Client(url)
      t.teardown(() => client.close())
      release()
      fake.beforeAnswer = async () => {}
      const result = await client.request({ method: 'tools/call', params: { name: 'quick', arguments: { text: 'yo' }, task: {} } } as never,
        specTypeSchemas.CallToolResult)
      t.same(result.structuredContent, { shout: 'YO', length: 2 })
    })
  })
}
