// The floor for a paid call on PostgreSQL: node:http and a pg pool of the service's size running the very ledger
// statements Apiary runs per paid call (its hold, then its capture, from the built code) with the request ids Apiary
// stores, then sending the answer Apiary sent. No framework, no validation, no analysis: what is left is the
// database's own limit.
// Plain .mjs so it runs under `node` alone.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import pg from 'pg'
import { FASTIFY_KEEP_ALIVE_MS, replayable } from './replay.mjs'
import { requestIdOf } from '../../dist/plugins/access-log.js'
import { postgresDebit } from '../../dist/src/core/ledger/holds/postgres-debit.js'
import { hashSecret } from '../../dist/src/core/ledger/secrets.js'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DATABASE_POOL_SIZE) })
const debit = postgresDebit(pool, 0)
const walletHashes = (process.env.WALLET_TOKENS ?? '').split(',').map(hashSecret)
const micros = Number(process.env.PRICE_MICROS)
const { headers, bytes: answer } = replayable(JSON.parse(readFileSync(process.env.ANSWER_FILE ?? '', 'utf8')))
let next = 0

/**
 * A fresh request id per call, as the service stores: the journal indexes its two rows a call by request id
 * (journal_by_request), and the constant id this baseline stored before put every insert on one index page, writing
 * about 8 % less WAL per call than the service's (docs/performance.md).
 */
async function charge (request) {
  const tokenHash = walletHashes[next++ % walletHashes.length]
  const requestId = requestIdOf(request)
  const held = await debit.hold({ tokenHash, micros, currency: 'USD', beeId: 'sentiment-analyzer', requestId, claim: null, expiresInSeconds: 120 })
  if (held === undefined) return 402
  return await debit.capture({ holdId: Number(held.id), requestId, completion: null }) ? 200 : 409
}

const server = createServer((request, response) => {
  if (request.url === '/health') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}')
    return
  }
  request.resume()
  request.on('end', () => {
    charge(request).then((status) => {
      if (status === 200) response.writeHead(200, headers).end(answer)
      else response.writeHead(status).end()
    }, (error) => {
      console.error(error)
      response.writeHead(500).end()
    })
  })
})
// Fastify's default, so that even the Keep-Alive header matches.
server.keepAliveTimeout = FASTIFY_KEEP_ALIVE_MS
server.listen(Number(process.env.PORT), process.env.HOST)
