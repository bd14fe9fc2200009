import { existsSync } from 'node:fs'
import { test } from 'tap'
import { listening } from '../mcp/clients.js'
import { connectWithOAuth, MemoryOAuthProvider, refresh, type Consent } from '../oauth/client.js'
import { balanceOf, createWallet } from '../../helper.js'

const CHROMIUM = '/usr/bin/chromium'
const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing (apt-get install -y chromium; .ci/run installs it)`

/** Consent as a person gives it: in headless Chromium, typing into the labelled fields and pressing Allow with the keyboard. */
function chromiumConsent (fields: { walletKey: string, cap: string, perCallCap: string }, seen: { title?: string, redirectHost?: string }): Consent {
  return async (authorizationUrl) => {
    const { default: puppeteer } = await import('puppeteer-core')
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
    })
    try {
      const page = await browser.newPage()
      const violations: string[] = []
      page.on('console', (message) => { if (/Content Security Policy/i.test(message.text())) violations.push(message.text()) })
      await page.goto(authorizationUrl.href)
      seen.title = await page.title()
      seen.redirectHost = await page.$eval('main p strong', (element) => element.textContent ?? '')
      await page.type('#wallet_key', fields.walletKey)
      await page.type('#cap', fields.cap)
      await page.type('#per_call_cap', fields.perCallCap)
      // The client's redirect is not served here: the request to it is what the client would receive.
      const back = page.waitForRequest((request) => request.url().startsWith('http://127.0.0.1:59999/'))
      await page.focus('button[value="allow"]')
      await page.keyboard.press('Enter')
      const url = new URL((await back).url())
      if (violations.length > 0) throw new Error(`CSP violations: ${violations.join('; ')}`)
      return url
    } finally {
      await browser.close()
    }
  }
}

test('in Chromium: the MCP SDK client discovers, registers, the wallet holder consents with a cap, paid calls are charged until the cap is spent, and revoking ends access', { skip, timeout: 120_000 }, async (t) => {
  const { app, url } = await listening(t)
  const wallet = await createWallet(app, 1)
  const provider = new MemoryOAuthProvider('Chromium Agent')
  const seen: { title?: string, redirectHost?: string } = {}
  const client = await connectWithOAuth(new URL('/mcp/oauth', url), provider, chromiumConsent({ walletKey: wallet.token, cap: '0.002', perCallCap: '0.001' }, seen))
  t.teardown(() => client.close())
  t.equal(seen.title, 'Connect Chromium Agent to Apiary', 'the page names the client')
  t.equal(seen.redirectHost, '127.0.0.1:59999', 'and where it will be sent back')

  const call = async () => await client.callTool({ name: 'sentiment-analyzer', arguments: { text: 'What a lovely day' } }) as { isError?: boolean, content: Array<{ text: string }> }
  t.notOk((await call()).isError, 'a paid call through the OAuth token goes through')
  t.equal(await balanceOf(app, wallet.id), 0.999, 'and is charged to the wallet')

  const budgetOf = async () => {
    const listed = await app.inject({ method: 'GET', url: '/api/wallet/tokens', headers: { 'x-registry-wallet-token': wallet.token } })
    return listed.json<{ tokens: Array<{ id: string, parentId: string | null, spent: number, cap: number }> }>().tokens.find((token) => token.parentId === null)
  }
  t.match(await budgetOf(), { cap: 0.002, spent: 0.001 }, 'against the cap set on the consent page')
  t.notOk((await call()).isError, 'the second call spends the rest of the cap')
  const past = await call()
  t.ok(past.isError, 'the cap spent, the next call is refused')
  t.match(past.content[0]?.text, /TOKEN_CAP_EXCEEDED/)
  t.equal(await balanceOf(app, wallet.id), 0.998, 'and not charged')

  const budget = await budgetOf()
  t.match(budget, { cap: 0.002, spent: 0.002 })
  const revoked = await app.inject({ method: 'DELETE', url: `/api/wallet/tokens/${budget?.id ?? ''}`, headers: { 'x-registry-wallet-token': wallet.token } })
  t.equal(revoked.statusCode, 200)
  const after = await call()
  t.ok(after.isError, 'revoked at /api/wallet/tokens, the next call is refused')
  t.match(after.content[0]?.text, /TOKEN_REVOKED/)
  t.equal(await balanceOf(app, wallet.id), 0.998, 'and not charged')
  const refreshed = await refresh(url, provider)
  t.equal(refreshed.status, 400, 'nor can the client refresh its way back')
  t.match(await refreshed.json(), { error: 'invalid_grant', error_description: /is revoked; connect again/ })
})
