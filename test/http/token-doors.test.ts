import type { AddressInfo } from 'node:net'
import { TaskState } from '@a2a-js/sdk'
import { test } from 'tap'
import { balanceOf, createWallet } from '../helper.js'
import { minted, tokensOf } from '../tokens-helper.js'
import { beeMessage, connect, send } from './a2a/clients.js'
import { clients, listening } from './mcp/clients.js'

const PRICE = 0.001
const INPUT = { text: 'A token, carried by an agent.' }

test('a verification token pays over MCP and A2A as over HTTP, in the header or in metadata, and is refused alike', async (t) => {
  const { app, url } = await listening(t)
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const wallet = await createWallet(app, 1)
  const token = await minted(app, wallet.token, { cap: 0.003, bees: ['sentiment-analyzer'] })
  const narrow = await minted(app, token.token, { cap: 0.001 })

  const { client: bare } = await clients['v2 client, 2026-07-28']!(url)
  t.teardown(() => bare.close())
  const inMeta = await bare.callTool({ name: 'sentiment-analyzer', arguments: INPUT, _meta: { 'ai.apiary/walletToken': narrow.token } })
  t.same(inMeta._meta['ai.apiary/charge'], { amount: PRICE, balance: 1 - PRICE, currency: 'USD' }, 'MCP: a token in _meta pays, from its wallet')
  const { client: mcp } = await clients['v2 client, 2026-07-28']!(url, { 'X-Registry-Wallet-Token': token.token })
  t.teardown(() => mcp.close())
  const paid = await mcp.callTool({ name: 'sentiment-analyzer', arguments: INPUT })
  t.notOk(paid.isError, 'MCP: a token in the header pays')
  const denied = await mcp.callTool({ name: 'weather-sensor', arguments: { latitude: 1, longitude: 2 } })
  t.equal(denied.isError, true)
  t.match(JSON.stringify(denied), /TOKEN_SCOPE_DENIED/, 'MCP: outside the allow-list')

  const a2a = await connect(base)
  const task = await send(a2a, beeMessage('sentiment-analyzer', INPUT), { 'X-Registry-Wallet-Token': token.token })
  if (!('status' in task)) throw new Error('not a task')
  t.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED, 'A2A: paid with the token')
  const over = await send(a2a, beeMessage('sentiment-analyzer', INPUT), {}, { 'ai.apiary/walletToken': narrow.token })
  if (!('status' in over)) throw new Error('not a task')
  t.equal(over.status?.state, TaskState.TASK_STATE_AUTH_REQUIRED, 'A2A: the child (in metadata) has spent its cap')
  t.match(JSON.stringify(over.status?.message), /TOKEN_CAP_EXCEEDED/)

  t.equal(await balanceOf(app, wallet.id), 1 - 3 * PRICE)
  const tokens = await tokensOf(app, wallet.token)
  t.equal(tokens.get(token.id)?.remaining, 0, 'the parent counted the child\'s call')
  t.equal(tokens.get(narrow.id)?.spent, PRICE)
})

test('a valid token counts against its wallet\'s rate limit; a forged one against the client address', async (t) => {
  const { app } = await listening(t, { env: { RATE_LIMIT_WALLET_PER_WINDOW: '3', RATE_LIMIT_ANONYMOUS_PER_WINDOW: '100' } })
  const wallet = await createWallet(app, 1)
  const list = (credential: string) => app.inject({ url: '/api/wallet/tokens', headers: { 'x-registry-wallet-token': credential } })
  const first = await minted(app, wallet.token, { cap: 1 })
  const second = await minted(app, wallet.token, { cap: 1 })
  t.equal((await list(first.token)).statusCode, 200)
  const limited = await list(second.token)
  t.equal(limited.statusCode, 429, 'two mints and one listing used the wallet\'s three; another token of the wallet is limited too')
  t.match(limited.json(), { code: 'RATE_LIMITED', message: /this wallet/ })
  const forged = `${first.token.slice(0, -6)}AAAAAA`
  const anonymous = await list(forged)
  t.equal(anonymous.statusCode, 401, 'a forged token is not counted against the wallet')
  t.equal(anonymous.json().code, 'TOKEN_INVALID')
})

test('a token that cannot pay is told what its holder can do, in the same 402 body on every door', async (t) => {
  const { app, url } = await listening(t)
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const wallet = await createWallet(app, 1)
  const spent = await minted(app, wallet.token, { cap: PRICE })
  const execute = (token: string) => app.inject({
    method: 'POST', url: '/api/bees/sentiment-analyzer/execute', headers: { 'x-registry-wallet-token': token }, payload: INPUT
  })
  t.equal((await execute(spent.token)).statusCode, 200)
  const http = await execute(spent.token)
  t.equal(http.statusCode, 402)
  const details = http.json().transactionDetails
  t.match(http.json(), { code: 'TOKEN_CAP_EXCEEDED', transactionDetails: { beeId: 'sentiment-analyzer', cost: PRICE, currency: 'USD', requiredHeader: 'X-Registry-Wallet-Token' } })
  t.match(details.howToPay, /^The verification token in X-Registry-Wallet-Token cannot pay for this call: ask whoever issued it for a token with a higher cap/)
  t.match(details.howToPay, /or pay with a wallet directly: send the same request again with the header X-Registry-Wallet-Token set to the token of a USD wallet/)
  t.notMatch(details.howToPay, /^Send /, 'not the wallet holder\'s sentence alone')

  const forged = await execute(`${spent.token.slice(0, -6)}AAAAAA`)
  t.match(forged.json(), { code: 'TOKEN_INVALID', transactionDetails: { howToPay: /ask whoever issued it for a new token, or pay with a wallet directly/ } })

  const { client: mcp } = await clients['v2 client, 2026-07-28']!(url, { 'X-Registry-Wallet-Token': spent.token })
  t.teardown(() => mcp.close())
  const tool = await mcp.callTool({ name: 'sentiment-analyzer', arguments: INPUT })
  const content = tool.content as Array<{ text: string }>
  t.same(JSON.parse(content[0]?.text ?? '{}').transactionDetails, details, 'MCP: the same transactionDetails')

  const a2a = await connect(base)
  const task = await send(a2a, beeMessage('sentiment-analyzer', INPUT), { 'X-Registry-Wallet-Token': spent.token })
  if (!('status' in task)) throw new Error('not a task')
  t.ok(JSON.stringify(task.status?.message).includes(`"transactionDetails":${JSON.stringify(details)}`), 'A2A: the same transactionDetails')
})
