import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { walletCommand } from '../../../src/cli/wallet-command.js'
import { balanceOf } from '../../helper.js'
import { listening } from '../mcp/clients.js'
import { connectWithOAuth, FormBrowser, MemoryOAuthProvider, REDIRECT } from '../oauth/client.js'

test('a one-time sign-in link from npm run wallet signs the holder in to the consent page, without the wallet key, once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-signin-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const databaseUrl = `sqlite:${join(dir, 'ledger.db')}`
  const output: string[] = []
  const { app, url } = await listening(t, { env: { DATABASE_URL: databaseUrl } })
  const env = { databaseUrl, defaultCurrency: 'USD', baseUrl: url.origin, print: (line: string) => output.push(line) }
  t.equal(await walletCommand(['create', '--balance', '1'], env), 0)
  const wallet = JSON.parse(output[0] ?? '{}') as { id: string }
  output.length = 0
  t.equal(await walletCommand(['sign-in', wallet.id], env), 0)
  const link = output[0] as string
  t.match(link, `${url.origin}/oauth/sign-in?code=sic_`)
  t.equal(await walletCommand(['sign-in', 'wal_nobody'], { ...env, print: () => {} }).catch((error: Error) => error.message), 'no wallet has the id wal_nobody')

  const browser = new FormBrowser()
  const client = await connectWithOAuth(new URL('/mcp/oauth', url), new MemoryOAuthProvider('Linked Agent'), async (authorizationUrl) => {
    const signedIn = await browser.go(link)
    t.equal(signedIn.status, 200)
    t.match(await signedIn.text(), `signed in as wallet ${wallet.id}`)
    t.equal((await browser.go(link)).status, 400, 'the link works once')
    const page = await browser.follow(authorizationUrl)
    const html = await page.response.text()
    t.match(html, `Signed in as wallet <strong>${wallet.id}</strong>`)
    t.notMatch(html, 'name="wallet_key"', 'no wallet key is asked for')
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] as string
    const answer = await browser.follow(page.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: page.url.origin },
      body: new URLSearchParams({ csrf, decision: 'allow', cap: '0.01', bees: 'all', expires_in_days: '1' }).toString()
    })
    t.ok(answer.url.href.startsWith(REDIRECT), 'consent given')
    return answer.url
  })
  t.teardown(() => client.close())
  const call = await client.callTool({ name: 'sentiment-analyzer', arguments: { text: 'good' } }) as { isError?: boolean }
  t.notOk(call.isError)
  t.equal(await balanceOf(app, wallet.id), 0.999)
})

test('denying on the consent page sends the client access_denied', async (t) => {
  const { url } = await listening(t)
  const provider = new MemoryOAuthProvider('Refused Agent')
  const outcome = await connectWithOAuth(new URL('/mcp/oauth', url), provider, async (authorizationUrl) => {
    const browser = new FormBrowser()
    const page = await browser.follow(authorizationUrl)
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.response.text())?.[1] as string
    const answer = await browser.follow(page.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: page.url.origin },
      body: new URLSearchParams({ csrf, decision: 'deny' }).toString()
    })
    t.equal(answer.url.searchParams.get('error'), 'access_denied')
    t.equal(answer.url.searchParams.get('error_description'), 'The wallet holder declined.')
    throw new Error('declined')
  }).catch((error: Error) => error.message)
  t.equal(outcome, 'declined')
})
