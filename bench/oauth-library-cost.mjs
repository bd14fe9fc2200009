// What an OAuth authorization server library costs at start and in memory, for docs/agents/oauth.md:
// oidc-provider (what Apiary uses) against the MCP SDK's Express auth helpers (the alternative issue 27 names).
// Each run is one fresh process: import the library, build the server, answer one authorization request over
// HTTP, then measure heap and RSS after a full GC, against a baseline that does the same with no library.
//   node --expose-gc bench/oauth-library-cost.mjs [runs]
// Plain JavaScript, not TypeScript: a TypeScript loader would be timed with the imports. Runs with any Node >= 20.
import { execFileSync } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { once } from 'node:events'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'

const REDIRECT = 'http://127.0.0.1:59999/callback'
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
const client = { client_id: 'measured', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' }

/** Imports and builds one candidate; answers its request listener and the path of its authorization endpoint. */
const candidates = {
  async none () {
    return { listener: (_request, response) => { response.writeHead(303, { location: '/consent' }).end() }, path: '/authorize' }
  },
  async 'oidc-provider' () {
    const { default: Provider } = await import('oidc-provider')
    const imported = performance.now()
    const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })
    const provider = new Provider('http://127.0.0.1', {
      clients: [{ ...client, id_token_signed_response_alg: 'EdDSA' }],
      jwks: { keys: [{ ...jwk, alg: 'EdDSA', use: 'sig' }] },
      pkce: { required: () => true },
      features: {
        devInteractions: { enabled: false },
        userinfo: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        revocation: { enabled: true },
        registration: { enabled: true }
      },
      interactions: { url: (_ctx, interaction) => `/consent/${interaction.uid}` }
    })
    return { imported, listener: provider.callback(), path: '/auth' }
  },
  async 'mcp-sdk' () {
    const [{ default: express }, { mcpAuthRouter }] = await Promise.all([import('express'), import('@modelcontextprotocol/sdk/server/auth/router.js')])
    const imported = performance.now()
    // The helpers route and validate; the storage, codes, tokens, refresh rotation and resource checks are the
    // provider's, written by the application. Here, only what one authorization request reaches.
    const unwritten = async () => { throw new Error('not written') }
    const provider = {
      clientsStore: { getClient: async (id) => id === client.client_id ? client : undefined },
      authorize: async (_client, _params, response) => { response.redirect(303, '/consent/x') },
      challengeForAuthorizationCode: unwritten,
      exchangeAuthorizationCode: unwritten,
      exchangeRefreshToken: unwritten,
      verifyAccessToken: unwritten
    }
    const app = express()
    app.use(mcpAuthRouter({ provider, issuerUrl: new URL('http://127.0.0.1') }))
    return { imported, listener: app, path: '/authorize' }
  }
}

/** Serves one request with the listener and answers the time it took and the response. */
async function ask (listener, path, search = '') {
  const server = createServer(listener).listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = new URL(path, `http://127.0.0.1:${server.address().port}`)
  url.search = search
  const asked = performance.now()
  const response = await fetch(url, { redirect: 'manual' })
  const body = await response.text()
  const ms = performance.now() - asked
  server.close()
  return { ms, status: response.status, body }
}

async function measureOnce (name) {
  // Node's fetch loads undici on first use: loaded before the clock starts, it is in the baseline, not in a candidate.
  await ask((_request, response) => response.end(), '/')
  const started = performance.now()
  const { imported = performance.now(), listener, path } = await candidates[name]()
  const built = performance.now()
  const search = new URLSearchParams({ client_id: client.client_id, response_type: 'code', redirect_uri: REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256', scope: 'openid', state: 's' }).toString()
  const first = await ask(listener, path, search)
  if (first.status !== 302 && first.status !== 303) throw new Error(`${name}: the authorization request answered ${first.status} ${first.body}`)
  globalThis.gc()
  const { heapUsed, rss } = process.memoryUsage()
  return { importMs: imported - started, buildMs: built - imported, firstRequestMs: first.ms, heapMB: heapUsed / 2 ** 20, rssMB: rss / 2 ** 20 }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

if (process.argv[2] === '--one') {
  // The last line: oidc-provider prints its notices on stdout.
  process.stdout.write(`\n${JSON.stringify(await measureOnce(process.argv[3]))}`)
} else {
  const runs = Number(process.argv[2] ?? 5)
  const results = { none: [], 'oidc-provider': [], 'mcp-sdk': [] }
  // Interleaved, so that a burst of load on the machine falls on every candidate alike.
  for (let run = 0; run < runs; run++) {
    for (const name of Object.keys(results)) {
      const out = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--one', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      results[name].push(JSON.parse(out.trim().split('\n').at(-1)))
    }
  }
  const base = { heapMB: median(results.none.map((r) => r.heapMB)), rssMB: median(results.none.map((r) => r.rssMB)) }
  console.log(`Node ${process.version}, median of ${runs} fresh processes each; memory after a full GC, above the baseline (${base.heapMB.toFixed(1)} MB heap, ${base.rssMB.toFixed(1)} MB RSS)`)
  for (const name of ['oidc-provider', 'mcp-sdk']) {
    const of = (key) => median(results[name].map((r) => r[key]))
    console.log(`${name.padEnd(14)} import ${of('importMs').toFixed(0)} ms, build ${of('buildMs').toFixed(0)} ms, first authorization request ${of('firstRequestMs').toFixed(0)} ms, heap +${(of('heapMB') - base.heapMB).toFixed(1)} MB, RSS +${(of('rssMB') - base.rssMB).toFixed(1)} MB`)
  }
}
