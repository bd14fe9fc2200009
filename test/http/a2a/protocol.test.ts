import { test } from 'tap'
import { TaskState } from '@a2a-js/sdk'
import { beeMessage, connect, listening, send } from './clients.js'

const post = (base: string, body: string, headers: Record<string, string> = {}) => fetch(`${base}/a2a`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
  body
})

const rpc = (method: string, params: unknown = {}) => JSON.stringify({ jsonrpc: '2.0', id: 'r1', method, params })

test('malformed JSON-RPC is answered per the protocol, never with a 5xx', async (t) => {
  const { base } = await listening(t, { env: { BODY_LIMIT_BYTES: '4096' } })
  const cases: Array<[string, string, Record<string, string>, number, number]> = [
    ['not JSON', '{"jsonrpc":', {}, 400, -32700],
    ['a media type that is not JSON', 'hello', { 'content-type': 'text/plain' }, 415, -32600],
    ['too large', `{"pad":"${'x'.repeat(4096)}"}`, {}, 413, -32600],
    ['too deep', `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${'{"a":'.repeat(70)}1${'}'.repeat(70)}}`, {}, 400, -32600],
    ['a batch', '[]', {}, 200, -32600],
    ['not a JSON-RPC request', '{"hello":"world"}', {}, 200, -32600],
    ['a notification', '{"jsonrpc":"2.0","method":"SendMessage","params":{}}', {}, 200, -32600],
    ['an unknown method', rpc('message/send'), {}, 200, -32601],
    ['no A2A-Version (0.3, where SendMessage is message/send)', rpc('SendMessage'), { 'a2a-version': '' }, 200, -32601],
    ['an A2A-Version not served', rpc('SendMessage'), { 'a2a-version': '2.0' }, 200, -32009],
    ['params that are not a SendMessageRequest', rpc('SendMessage', { message: { parts: [] } }), {}, 200, -32602],
    ['a text part only', rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'weather-sensor' }] } }), {}, 200, -32005],
    ['a data part of another media type', rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: {}, mediaType: 'text/csv' }] } }), {}, 200, -32005],
    ['a data part without beeId', rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { input: {} } }] } }), {}, 200, -32602],
    ['two data parts', rpc('SendMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { beeId: 'a' } }, { data: { beeId: 'b' } }] } }), {}, 200, -32602],
    ['a task to continue', rpc('SendMessage', { message: { messageId: 'm', taskId: 't-1', role: 'ROLE_USER', parts: [{ data: { beeId: 'text-summarizer' } }] } }), {}, 200, -32001]
  ]
  for (const [what, body, headers, status, code] of cases) {
    const response = await post(base, body, headers)
    t.equal(response.status, status, what)
    t.match(response.headers.get('content-type'), /^application\/json/, what)
    const answer = await response.json() as { jsonrpc: string, error: { code: number, message: string, data?: Array<Record<string, unknown>> } }
    t.equal(answer.jsonrpc, '2.0', what)
    t.equal(answer.error.code, code, `${what}: ${answer.error.message}`)
    for (const detail of answer.error.data ?? []) t.type(detail['@type'], 'string', `${what}: each detail names its type`)
  }
  const deep = await (await post(base, cases[3]![1])).json() as { error: { data: Array<Record<string, any>> } }
  t.equal(deep.error.data[1]?.value.code, 'BODY_TOO_DEEP', 'our body in data')
  const violation = await (await post(base, cases[13]![1])).json() as { id: unknown, error: { data: Array<Record<string, any>> } }
  t.equal(violation.id, 'r1', 'the request id is echoed')
  t.match(violation.error.data[0], { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: '/message/parts/data/beeId' }] })
  const query = await fetch(`${base}/a2a?A2A-Version=1.0`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc('GetTask', { id: 'x' }) })
  t.equal((await query.json() as { error: { code: number } }).error.code, -32001, 'the version may come as a request parameter (no such task)')
})

test('what the card does not declare is refused; tasks that are not one\'s own are not found', async (t) => {
  const { base } = await listening(t)
  const client = await connect(base)
  await t.rejects(client.getTask({ tenant: '', id: 'any' }), { name: 'TaskNotFoundError', envelopeCode: -32001 }, 'tasks are async Bees\' runs: no such one')
  await t.rejects(client.cancelTask({ tenant: '', id: 'any', metadata: undefined }), { name: 'TaskNotFoundError' })
  const listed = await client.listTasks({ tenant: '', contextId: '', status: 0, pageToken: '', statusTimestampAfter: undefined })
  t.same(listed.tasks, [], 'ListTasks without a wallet token: no one\'s tasks')
  const push = await post(base, rpc('CreateTaskPushNotificationConfig', { taskId: 'any', url: 'https://example.com' }))
  t.equal((await push.json() as { error: { code: number } }).error.code, -32001, 'no such task to push')
  const badPage = await post(base, rpc('ListTasks', { pageSize: 1000 }))
  t.equal((await badPage.json() as { error: { code: number } }).error.code, -32602, 'pageSize is 1 to 100')
  const extended = await post(base, rpc('GetExtendedAgentCard', {}))
  t.equal((await extended.json() as { error: { code: number } }).error.code, -32004, 'no extended card')

  // A sync Bee's streaming send: its finished task, alone.
  const events = []
  for await (const event of client.sendMessageStream({ tenant: '', message: beeMessage('text-summarizer', { text: 'One sentence here.' }), configuration: undefined, metadata: undefined })) events.push(event)
  t.equal(events.length, 1)
  t.equal(events[0]?.payload?.$case === 'task' && events[0].payload.value.status?.state, TaskState.TASK_STATE_COMPLETED)
  const refused = await post(base, rpc('SendStreamingMessage', { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { beeId: 'no-such-bee' } }] } }))
  t.match(refused.headers.get('content-type'), /^application\/json/, 'a refusal comes before any stream, as JSON')
  t.equal((await refused.json() as { error: { code: number } }).error.code, -32602)
  t.ok(await send(client, beeMessage('text-summarizer', { text: 'Still here.' })), 'the client still works')
})
