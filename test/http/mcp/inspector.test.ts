import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { test } from 'tap'
import { createWallet, balanceOf } from '../../helper.js'
import { inspectorPackage, ltsNode, ltsToolsSkip } from '../../lts-tools.js'
import { listening } from './clients.js'

const run = promisify(execFile)

/**
 * The MCP Inspector's CLI (2.x, which needs Node >= 22, so run with the LTS binary) against /mcp as its
 * README shows it, with the method and the wallet header as flags. Its postinstall only installs the
 * clients of a source checkout: the published package ships them built.
 */
async function inspect (home: string, url: URL, ...args: string[]): Promise<Record<string, any>> {
  const { stdout } = await run(ltsNode, [join(inspectorPackage, 'clients/launcher/build/index.js'), '--cli', url.href, ...args], {
    timeout: 60_000,
    // It keeps a catalog of servers and a storage folder in the home folder: the test's own.
    env: { ...process.env, HOME: home, NO_COLOR: '1' }
  })
  return JSON.parse(stdout) as Record<string, any>
}

test('the MCP Inspector CLI lists the tools, makes a paid call with the wallet header, charged once, and reads llms.txt', { skip: ltsToolsSkip }, async (t) => {
  const { app, url } = await listening(t)
  const wallet = await createWallet(app, 1)
  const home = t.testdir()

  const listed = await inspect(home, url, '--method', 'tools/list')
  t.ok(listed.tools.some((tool: { name: string }) => tool.name === 'sentiment-analyzer'), 'the paid Bee is a tool')
  t.equal(listed.tools[0].name, 'find_bees')

  const paid = await inspect(home, url, '--method', 'tools/call', '--tool-name', 'sentiment-analyzer', '--tool-arg', 'text=What a lovely day.',
    '--header', `X-Registry-Wallet-Token: ${wallet.token}`)
  t.notOk(paid.isError, 'answered')
  t.equal(paid.structuredContent.sentiment, 'positive')
  t.same(paid._meta['ai.apiary/charge'], { amount: 0.001, balance: 0.999, currency: 'USD' })
  t.equal(await balanceOf(app, wallet.id), 0.999, 'the wallet paid the price once')

  const llms = await inspect(home, url, '--method', 'resources/read', '--uri', 'apiary://llms.txt')
  t.match(llms.contents, [{ uri: 'apiary://llms.txt', mimeType: 'text/markdown', text: /^# Apiary/ }], 'llms.txt as a resource')
})
