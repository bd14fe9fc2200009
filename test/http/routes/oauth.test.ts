import { test } from 'tap'
import { listening } from '../mcp/clients.js'
import { connectWithOAuth, formConsent, MemoryOAuthProvider } from '../oauth/client.js'
import { balanceOf, createWallet } from '../../helper.js'

test('an MCP client goes from no credentials to a paid call through OAuth alone, charged against the budget it was granted', async (t) => {
  const { app, url } = await listening(t)
  const wallet = await createWallet(app, 1)
  const oauthUrl = new URL('/mcp/oauth', url)
  const provider = new MemoryOAuthProvider('Budget Agent')
  const seen: { page?: string } = {}
  const client = await connectWithOAuth(oauthUrl, provider, formConsent({ wallet_key: wallet.token, cap: '0.002', per_call_cap: '0.001', bees: 'all', expires_in_days: '1' }, seen))
  t.teardown(() => client.close())
  t.match(seen.page, /Budget Agent/, 'the consent page names the client')
  t.match(seen.page, /127\.0\.0\.1:59999/, 'and its redirect host')

  const call = async () => await client.callTool({ name: 'sentiment-analyzer', arguments: { text: 'I love it' } }) as { isError?: boolean, content: Array<{ text: string }> }
  t.notOk((await call()).isError, 'the first paid call goes through')
  t.notOk((await call()).isError, 'the second too')
  t.equal(await balanceOf(app, wallet.id), 0.998, 'both were charged to the wallet')
  const third = await call()
  t.ok(third.isError, 'the third is past the cap')
  t.match(third.content[0]?.text, /TOKEN_CAP|cap/i)
  t.equal(await balanceOf(app, wallet.id), 0.998)

  const tokens = await app.inject({ method: 'GET', url: '/api/wallet/tokens', headers: { 'x-registry-wallet-token': wallet.token } })
  const listed = tokens.json<{ tokens: Array<{ label: string, spent: number, parentId: string | null }> }>().tokens
  const budget = listed.find((token) => token.parentId === null)
  t.match(budget, { label: 'OAuth: Budget Agent (127.0.0.1:59999)', spent: 0.002 }, 'the budget is listed with the wallet\'s tokens')
  t.ok(provider.saved.refresh_token, 'a refresh token was issued')
})
