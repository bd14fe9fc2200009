import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { request } from 'undici'
import { type Server, startServer } from './children.js'

/** One admin token per run: it only ever reaches child processes of this run. */
const ADMIN_TOKEN = `bench-${randomBytes(16).toString('hex')}`
/** Likewise the key of signing secrets at rest, which PostgreSQL requires. */
export const SECRETS_KEY = randomBytes(32).toString('base64')
/** 1e9 sentiment calls at the default price: a run can never drain it into a 402 storm. */
const WALLET_BALANCE = 1_000_000
/** What `npm start` runs: the bundle (scripts/bundle.mjs). */
const SERVER_SCRIPT = fileURLToPath(new URL('../dist/bundle/server.js', import.meta.url))
/** The node flags `npm start` runs the server with (the young generation's size), so the bench measures the same. */
const START_FLAGS = ((JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } })
  .scripts.start.match(/--[\w-]+=\S+/g) ?? [])

export interface ServiceSpec {
  name: string
  databaseUrl: string
  /** Where its log goes. */
  dir: string
  /** Extra `node` flags, such as --cpu-prof. */
  nodeFlags?: string[]
  /** Another build of the server than the bundle (dist/src/server.js, whose packages a profile or a preload can tell apart). */
  script?: string
  /** Settings beyond the defaults below (METRICS_TOKEN, DATABASE_POOL_SIZE, …). */
  env?: Record<string, string>
  startupLimitMs?: number
}

/** What the service answered to one request, byte for byte: its headers in the order sent, the body base64-encoded. */
export interface Captured {
  status: number
  /** Every header but those node:http writes itself (Date, Connection, Keep-Alive), as name and value. */
  headers: Array<[string, string]>
  body: string
}

/** Written by node:http on every answer, the baselines' included. */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding'])

/** Starts the built service the way `npm start` does (its node flags too), logging at info as operators run it. */
export function startService ({ name, databaseUrl, dir, nodeFlags = [], script = SERVER_SCRIPT, env = {}, startupLimitMs }: ServiceSpec): Promise<Server> {
  return startServer({
    name,
    args: [...START_FLAGS, ...nodeFlags, script],
    // Limits checked on every request, as in service, but high enough that the load never meets them.
    env: {
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      ADMIN_TOKEN,
      SECRETS_KEY,
      RATE_LIMIT_ANONYMOUS_PER_WINDOW: '1000000000',
      RATE_LIMIT_WALLET_PER_WINDOW: '1000000000',
      RATE_LIMIT_PUBLISHER_PER_WINDOW: '1000000000',
      ...env
    },
    logFile: join(dir, `${name}.log`),
    startupLimitMs
  })
}

/** Creates a funded wallet through the admin API and returns its token. */
export async function fundedWallet (url: string): Promise<string> {
  const response = await fetch(`${url}/api/wallets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ balance: WALLET_BALANCE, label: 'benchmark' })
  })
  if (response.status !== 201) throw new Error(`creating a wallet answered ${response.status}: ${await response.text()}`)
  const { token } = await response.json() as { token: string }
  return token
}

/** A verification token minted from the wallet, with a cap the run cannot reach and no other limit. */
export async function mintedToken (url: string, walletToken: string): Promise<string> {
  const response = await fetch(`${url}/api/wallet/tokens`, {
    method: 'POST',
    headers: { 'x-registry-wallet-token': walletToken, 'content-type': 'application/json' },
    body: JSON.stringify({ cap: WALLET_BALANCE / 2, label: 'benchmark' })
  })
  if (response.status !== 201) throw new Error(`minting a token answered ${response.status}: ${await response.text()}`)
  const { token } = await response.json() as { token: string }
  return token
}

/** What the service answers to one request (a GET, or a POST with its body), as the raw baseline will replay it. */
export async function capture (url: string, init: { method?: 'GET' | 'POST', headers?: Record<string, string>, body?: string } = {}): Promise<Captured> {
  // undici's own request, not fetch: it keeps the headers in the order the service wrote them.
  const response = await request(url, init)
  const body = Buffer.from(await response.body.arrayBuffer())
  if (response.statusCode !== 200) throw new Error(`${init.method ?? 'GET'} ${url} answered ${response.statusCode}: ${body.toString()}`)
  const headers = Object.entries(response.headers)
    .filter(([name]) => !NODE_OWN_HEADERS.has(name))
    .map(([name, value]): [string, string] => [name, Array.isArray(value) ? value.join(', ') : String(value)])
  return { status: response.statusCode, headers, body: body.toString('base64') }
}

/**
 * Waits until the service's records show these many runs per Bee: a run changes the Bee's health figures, and so
 * the discovery and detail bytes, once the instance has synced its counts (HEALTH_SYNC_MS), so the bytes the raw
 * baseline replays are captured only then.
 */
export async function healthSettled (url: string, runs: Record<string, number>, limitMs = 30_000): Promise<void> {
  const started = performance.now()
  for (;;) {
    const { bees } = await (await fetch(`${url}/api/bees?limit=100`)).json() as { bees: Array<{ id: string, health?: { calls: number } }> }
    if (Object.entries(runs).every(([id, calls]) => bees.find((bee) => bee.id === id)?.health?.calls === calls)) return
    if (performance.now() - started > limitMs) throw new Error(`the Bees' health did not show ${JSON.stringify(runs)} within ${limitMs} ms`)
    await sleep(100)
  }
}

/** Creates a publisher through the admin API and returns its id and key. */
export async function createPublisher (url: string, name: string): Promise<{ id: string, key: string }> {
  const response = await fetch(`${url}/api/publishers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `${name}@example.com`, name })
  })
  if (response.status !== 201) throw new Error(`creating a publisher answered ${response.status}: ${await response.text()}`)
  return await response.json() as { id: string, key: string }
}

/** Publishes a free Bee whose endpoint is `endpoint` (the echo upstream): its input a text, its answer the text and its length. */
export async function publishEcho (url: string, id: string, endpoint: string): Promise<void> {
  const publisher = await createPublisher(url, 'bench')
  const response = await fetch(`${url}/api/bees`, {
    method: 'POST',
    headers: { authorization: `Bearer ${publisher.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      name: 'Echo',
      description: 'Answers with the text it is given and its length.',
      category: 'utility',
      endpoint,
      inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 1000 } }, required: ['text'], additionalProperties: false },
      outputSchema: { type: 'object', properties: { text: { type: 'string' }, length: { type: 'integer' } }, required: ['text', 'length'] },
      pricing: { type: 'free', costPerCall: 0 }
    })
  })
  if (response.status !== 201) throw new Error(`publishing ${id} answered ${response.status}: ${await response.text()}`)
}
