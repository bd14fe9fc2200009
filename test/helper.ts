import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import tap from 'tap'
import app, { serverOptions } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { redactPaths } from '../src/logger.js'

export const ADMIN_TOKEN = 'test-admin-token-0123456789'
export const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` }
/** Encrypts signing secrets at rest; PostgreSQL requires one. */
export const SECRETS_KEY = Buffer.alloc(32, 0x5e).toString('base64')
/**
 * Per-caller limits so high no test meets them, yet checked on every request: a suite makes thousands of
 * calls from one address. Tests of the limits set their own.
 */
export const UNREACHED_RATE_LIMITS = {
  RATE_LIMIT_ANONYMOUS_PER_WINDOW: '1000000',
  RATE_LIMIT_WALLET_PER_WINDOW: '1000000',
  RATE_LIMIT_PUBLISHER_PER_WINDOW: '1000000'
}

interface Teardown { teardown (fn: () => unknown): void }

export interface BuildOptions {
  env?: Record<string, string>
  /** Receives every log line, at level info and above (for assertions on what is logged). */
  logLines?: string[]
  /** Receives every route as it is added, its schema as the app finished it (for tests that walk the routes). */
  routes?: RouteOptions[]
  /** false: the models are not loaded up front, as in a server that has just started listening (see plugins/warm-up.ts). */
  warmUp?: boolean
}

/**
 * Builds the whole app on an in-memory ledger, exactly as server.ts does but without listening,
 * and closes it when the test ends. fastify-plugin exposes the app's decorators to the test.
 */
export async function build (t: Teardown, options: BuildOptions = {}): Promise<FastifyInstance> {
  const config = loadConfig({
    DATABASE_URL: ':memory:',
    ADMIN_TOKEN,
    SECRETS_KEY,
    // A test that blocks the loop on purpose (huge or hostile input) must not be shed; tests of the shedding set their own limits.
    PRESSURE_MAX_EVENT_LOOP_DELAY_MS: '0',
    // Nothing listens on port 9 (discard): a test that forgets its fake upstream fails fast.
    OPEN_METEO_URL: 'http://127.0.0.1:9',
    ...UNREACHED_RATE_LIMITS,
    ...options.env
  })
  const lines = options.logLines
  const logger = lines === undefined
    ? false
    : {
        level: config.LOG_LEVEL,
        redact: { paths: redactPaths, censor: '[redacted]' },
        stream: new Writable({
          write (chunk, _encoding, done) {
            lines.push(String(chunk))
            done()
          }
        })
      }
  const server = Fastify({ ...serverOptions(config), logger })
  const routes = options.routes
  if (routes !== undefined) server.addHook('onRoute', (route) => { routes.push(route) })
  await server.register(fp(app), { config })
  await server.ready()
  t.teardown(() => server.close())
  // A listening server loads them once it listens; a test's app never listens.
  if (options.warmUp !== false) await server.warmUp.start()
  return server
}

/**
 * One app for the tests of a file that only read from it (nothing one of them changes reaches another's assertions):
 * built at the first call, closed when the file ends. After a process's first, a build costs about 150 ms of CPU.
 */
export function sharedApp (options: BuildOptions = {}): () => Promise<FastifyInstance> {
  let app: Promise<FastifyInstance> | undefined
  return async () => await (app ??= build(tap, options))
}

/** Creates a wallet through the admin API and returns its id and token. */
export async function createWallet (server: FastifyInstance, balance: number, extra: Record<string, unknown> = {}) {
  const response = await server.inject({ method: 'POST', url: '/api/wallets', headers: adminHeaders, payload: { balance, ...extra } })
  if (response.statusCode !== 201) throw new Error(`wallet creation failed: ${response.body}`)
  return response.json<{ id: string, token: string, balance: number, currency: string }>()
}

export async function balanceOf (server: FastifyInstance, walletId: string): Promise<number> {
  const response = await server.inject({ method: 'GET', url: `/api/wallets/${walletId}`, headers: adminHeaders })
  return response.json<{ balance: number }>().balance
}

/** Runs a Bee over HTTP, paying with `walletToken` when given. */
export async function execute (server: FastifyInstance, beeId: string, payload: object, walletToken?: string, headers: Record<string, string> = {}) {
  const paying = walletToken === undefined ? {} : { 'x-registry-wallet-token': walletToken }
  return await server.inject({ method: 'POST', url: `/api/bees/${beeId}/execute`, payload, headers: { ...paying, ...headers } })
}
