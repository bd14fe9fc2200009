import { test } from 'tap'
import { openStore } from '../../src/core/ledger/open-store.js'
import { issuedWallet, postgresBackend, postgresSkip } from '../databases.js'
import { SECRETS_KEY } from '../helper.js'
import { startServer } from '../server-process.js'

const PRICE_MICROS = 1000
const headers = (credential: string) => ({ 'content-type': 'application/json', 'x-registry-wallet-token': credential })

test('two instances on one PostgreSQL: a token minted on one pays on the other, its cap shared exactly', { skip: postgresSkip }, async (t) => {
  const database = await postgresBackend()
  t.teardown(database.drop)
  const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
  t.teardown(() => store.close())
  const wallet = await issuedWallet(store, 1_000_000, 'shared')
  const servers = await Promise.all([startServer({ DATABASE_URL: database.url }), startServer({ DATABASE_URL: database.url })])
  t.teardown(() => Promise.all(servers.map((server) => server.stop())))
  const [one, two] = servers.map((server) => server.url) as [string, string]

  const k = 12
  const minted = await fetch(`${one}/api/wallet/tokens`, { method: 'POST', headers: headers(wallet.token), body: JSON.stringify({ cap: k * PRICE_MICROS / 1e6 }) })
  t.equal(minted.status, 201)
  const { id, token } = await minted.json() as { id: string, token: string }
  const child = await fetch(`${two}/api/wallet/tokens`, { method: 'POST', headers: headers(token), body: JSON.stringify({ cap: k * PRICE_MICROS / 1e6 }) })
  t.equal(child.status, 201, 'the second instance verifies the first one\'s token and mints a child')
  const childToken = (await child.json() as { token: string }).token

  const calls = Array.from({ length: 3 * k }, (_, i) => fetch(`${i % 2 === 0 ? one : two}/api/bees/sentiment-analyzer/execute`, {
    method: 'POST', headers: headers(i % 3 === 0 ? childToken : token), body: JSON.stringify({ text: 'Two instances, one cap.' })
  }))
  const statuses = (await Promise.all(calls)).map((response) => response.status)
  t.equal(statuses.filter((status) => status === 200).length, k, 'exactly K calls succeed across both instances')
  t.equal(statuses.filter((status) => status === 402).length, 2 * k, 'the rest are refused')
  const audit = await store.journal.audit(wallet.id)
  t.equal(audit?.balanceMicros, 1_000_000 - k * PRICE_MICROS, 'the wallet paid K times')
  t.equal(audit?.journalMicros, audit?.balanceMicros)
  t.match(await store.tokens.get(id), { spentMicros: k * PRICE_MICROS, capMicros: k * PRICE_MICROS })
})
