import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'tap'
import { walletCommand } from '../../src/cli/wallet-command.js'
import { build } from '../helper.js'

test('the wallet CLI creates a funded wallet whose token pays for calls on the same database', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-cli-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const databaseUrl = `sqlite:${join(dir, 'ledger.db')}`
  const output: string[] = []
  const env = { databaseUrl, defaultCurrency: 'USD', baseUrl: 'http://localhost:3000', print: (line: string) => output.push(line) }

  t.equal(await walletCommand(['create', '--balance', '5', '--label', 'curl user'], env), 0)
  const wallet = JSON.parse(output[0] ?? '{}')
  t.match(wallet, { id: /^wal_/, token: /^awt_/, balance: 5, currency: 'USD', label: 'curl user' })
  t.match(output[1], `export APIARY_WALLET_TOKEN=${wallet.token}`)

  output.length = 0
  t.equal(await walletCommand(['deposit', wallet.id, '--amount', '0.5'], env), 0)
  t.equal(JSON.parse(output[0] ?? '{}').balance, 5.5)

  const app = await build(t, { env: { DATABASE_URL: databaseUrl } })
  const response = await app.inject({
    method: 'POST',
    url: '/api/bees/sentiment-analyzer/execute',
    payload: { text: 'This works.' },
    headers: { 'x-registry-wallet-token': wallet.token }
  })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['x-registry-balance'], '5.499')
  await app.close()

  output.length = 0
  t.equal(await walletCommand(['show', wallet.id], env), 0)
  t.match(JSON.parse(output.join('\n')), {
    balance: 5.499, held: 0, recent: [{ kind: 'capture' }, { kind: 'hold' }, { kind: 'deposit' }, { kind: 'deposit' }]
  })
})

test('the wallet CLI refuses bad input with a reason', async (t) => {
  const env = { databaseUrl: ':memory:', defaultCurrency: 'USD', baseUrl: 'http://localhost:3000', print: () => {} }
  await t.rejects(walletCommand(['create', '--balance', 'lots'], env), /--balance must be a number/)
  await t.rejects(walletCommand(['create', '--balance', '1.0000001'], env), /at most 6 decimal places/)
  await t.rejects(walletCommand(['create', '--currency', 'usd'], env), /--currency/)
  await t.rejects(walletCommand(['deposit', 'wal_none', '--amount', '1'], env), /no wallet has the id/)
  t.equal(await walletCommand(['launch'], env), 2, 'unknown command prints usage')
})
