import SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3 } from 'openapi-types'
import type { Backend } from '../databases.js'
import { startFakeBee, type FakeBee } from '../fake-bee.js'
import { startFakeOpenMeteo, type FakeOpenMeteo } from '../fake-open-meteo.js'
import { ADMIN_TOKEN } from '../helper.js'
import { beeBody } from '../publishing-helper.js'
import { startServer, type ServerProcess } from '../server-process.js'
import { closeConnections, send, sendJson } from './http.js'

export interface Publisher { id: string, key: string }
export interface WalletCredentials { id: string, token: string }

/** A listening Apiary with fake upstreams, and actors the attacks need: two publishers, their Bees, wallets. */
export interface Target {
  url: string
  server: ServerProcess
  fakeBee: FakeBee
  openMeteo: FakeOpenMeteo
  admin: string
  /** Owns fuzz-free, fuzz-paid and fuzz-spare. */
  alice: Publisher
  /** Owns other-bee. */
  bob: Publisher
  /** Funded for far more calls than any run makes. */
  payer: WalletCredentials
  /** A second wallet, for the admin routes to act on. */
  spare: WalletCredentials
  /** The live OpenAPI document, read after the set-up (so it holds the published Bees' paths). */
  document: OpenAPIV3.Document
  /** Stops the server and the fakes. */
  stop (): Promise<void>
}

export const PAID_PRICE = 0.001

async function created<T> (response: Promise<{ status: number, json: unknown, body: Buffer }>): Promise<T> {
  const answer = await response
  if (answer.status !== 201) throw new Error(`set-up request failed with ${answer.status}: ${answer.body.toString()}`)
  return answer.json as T
}

export async function createPublisher (url: string, name: string): Promise<Publisher> {
  return created<Publisher>(sendJson(url, 'POST', '/api/publishers', { email: `${name}@example.com`, name }, { authorization: `Bearer ${ADMIN_TOKEN}` }))
}

export async function createWallet (url: string, balance: number): Promise<WalletCredentials> {
  return created<WalletCredentials>(sendJson(url, 'POST', '/api/wallets', { balance }, { authorization: `Bearer ${ADMIN_TOKEN}` }))
}

export async function publishBee (url: string, publisher: Publisher, body: object): Promise<{ id: string, signingSecret: string }> {
  return created(sendJson(url, 'POST', '/api/bees', body, { authorization: `Bearer ${publisher.key}` }))
}

/**
 * The two passes every adversarial suite makes: with the per-caller limits lifted (test/server-process.ts
 * lifts them), so that each attack reaches its route, and with the defaults an operator runs, so that the
 * limit's own refusals (429 on every door) are attacked too. An empty variable counts as unset.
 */
export const LIMIT_PASSES = [
  { name: 'limits lifted', env: {} },
  { name: 'default limits', env: { RATE_LIMIT_ANONYMOUS_PER_WINDOW: '', RATE_LIMIT_WALLET_PER_WINDOW: '', RATE_LIMIT_PUBLISHER_PER_WINDOW: '' } }
] as const

export const paidPricing = { type: 'pay-per-use', costPerCall: PAID_PRICE }

/**
 * Starts the bundle on the backend as its own process, the way it runs in production, with Open-Meteo
 * and the publishers' Bee faked on 127.0.0.1 (allowed by EGRESS_ALLOWLIST), and sets up the actors.
 */
export async function startTarget (backend: Backend, env: Record<string, string> = {}): Promise<Target> {
  const fakeBee = await startFakeBee()
  const openMeteo = await startFakeOpenMeteo()
  const server = await startServer({
    DATABASE_URL: backend.url,
    OPEN_METEO_URL: openMeteo.url,
    EGRESS_ALLOWLIST: '127.0.0.1',
    REMOTE_BEE_TIMEOUT_MS: '1000',
    WEATHER_TIMEOUT_MS: '1000',
    ...env
  })
  const url = server.url
  const alice = await createPublisher(url, 'alice')
  const bob = await createPublisher(url, 'bob')
  await publishBee(url, alice, beeBody('fuzz-free', fakeBee.url))
  await publishBee(url, alice, beeBody('fuzz-paid', fakeBee.url, { pricing: paidPricing }))
  await publishBee(url, alice, beeBody('fuzz-spare', fakeBee.url))
  await publishBee(url, bob, beeBody('other-bee', fakeBee.url, { pricing: paidPricing }))
  const payer = await createWallet(url, 1_000_000)
  const spare = await createWallet(url, 10)
  // What many operations give alike (parameters, responses, titled schemas) is a $ref: dereferenced, each operation
  // reads whole, and the fuzzer builds its paths, queries and bodies from every part of it.
  const document = await SwaggerParser.dereference((await send(url, { method: 'GET', path: '/openapi/openapi.json' })).json as OpenAPIV3.Document) as OpenAPIV3.Document
  return {
    url,
    server,
    fakeBee,
    openMeteo,
    admin: ADMIN_TOKEN,
    alice,
    bob,
    payer,
    spare,
    document,
    async stop () {
      closeConnections()
      await server.stop()
      await fakeBee.close()
      await openMeteo.close()
    }
  }
}
