import { createHmac } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import type { OpenAPIV3 } from 'openapi-types'
import { test } from 'tap'
import app, { serverOptions } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { PROVIDER_ENDPOINTS } from '../../src/core/oauth/provider.js'
import { backends } from '../databases.js'
import type { FakeBeeMode } from '../fake-bee.js'
import { ADMIN_TOKEN, adminHeaders, build } from '../helper.js'
import { beeBody, createPublisher as createPublisherInProcess } from '../publishing-helper.js'
import { errorShapeProblem, send, sendJson } from './http.js'
import { createWallet, LIMIT_PASSES, PAID_PRICE, paidPricing, publishBee, startTarget, type Target } from './target.js'

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const walletHeader = (token: string) => ({ 'x-registry-wallet-token': token })

/** An upstream whose answer each test sets: stands in for Open-Meteo or a publisher's Bee. */
async function startUpstream () {
  const upstream = {
    url: '',
    handle: (_request: IncomingMessage, response: ServerResponse) => { response.end('{}') },
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    }
  }
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => upstream.handle(request, response))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  upstream.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return upstream
}

async function balance (target: Target, walletId: string): Promise<number> {
  return ((await send(target.url, { method: 'GET', path: `/api/wallets/${walletId}`, headers: admin })).json as { balance: number }).balance
}

async function journal (target: Target, walletId: string) {
  const response = await send(target.url, { method: 'GET', path: `/api/wallets/${walletId}/journal?limit=200`, headers: admin })
  return (response.json as { entries: Array<{ kind: string, amount: number, requestId: string | null }> }).entries
}

const execute = (target: Target, beeId: string, input: unknown, headers: Record<string, string> = {}) =>
  sendJson(target.url, 'POST', `/api/bees/${beeId}/execute`, input, headers)

for (const backend of backends) {
  for (const pass of LIMIT_PASSES) {
    test(`OWASP API Security Top 10 (2023) attacks on Apiary (${backend.name}, ${pass.name})`, { skip: backend.skip, timeout: 180_000 }, async (t) => {
      const database = await backend.open()
      t.teardown(database.drop)
      const upstream = await startUpstream()
      t.teardown(upstream.close)
      const target = await startTarget(database, { OPEN_METEO_URL: upstream.url, WEATHER_CACHE_SECONDS: '0', ...pass.env })
      t.teardown(target.stop)
      const { alice, bob } = target

      t.test('API1:2023 Broken Object Level Authorization: no publisher reaches another\'s Bee, no wallet token another wallet', async (t) => {
        const before = (await send(target.url, { method: 'GET', path: '/api/bees/other-bee' })).json as Record<string, unknown>
        const patch = await sendJson(target.url, 'PATCH', '/api/bees/other-bee', { name: 'Hijacked', endpoint: 'https://evil.example/x' }, bearer(alice.key))
        t.equal(patch.status, 404, 'PATCH of Bob\'s Bee with Alice\'s key: 404, as if it did not exist')
        t.equal((patch.json as { code: string }).code, 'BEE_NOT_FOUND')
        const status = await sendJson(target.url, 'PATCH', '/api/bees/other-bee', { status: 'inactive' }, bearer(alice.key))
        t.equal(status.status, 404, 'nor can she switch it off')
        const removal = await send(target.url, { method: 'DELETE', path: '/api/bees/other-bee', headers: bearer(alice.key) })
        t.equal(removal.status, 404, 'DELETE of Bob\'s Bee with Alice\'s key: 404')
        const after = (await send(target.url, { method: 'GET', path: '/api/bees/other-bee' })).json as Record<string, unknown>
        t.same(after, before, 'Bob\'s Bee is unchanged')

        const mine = await createWallet(target.url, 1)
        const theirs = await createWallet(target.url, 1)
        const own = await send(target.url, { method: 'GET', path: `/api/wallet?id=${theirs.id}&walletId=${theirs.id}`, headers: walletHeader(mine.token) })
        t.equal((own.json as { id: string }).id, mine.id, 'GET /api/wallet answers the token\'s own wallet, whatever the query names')
        for (const path of [`/api/wallets/${theirs.id}`, `/api/wallets/${theirs.id}/journal`]) {
          const viaToken = await send(target.url, { method: 'GET', path, headers: { ...bearer(mine.token), ...walletHeader(mine.token) } })
          t.equal(viaToken.status, 401, `a wallet token cannot read ${path}`)
        }

        // Idempotency keys are scoped to the wallet: the same key from another wallet is not the first wallet's replay.
        const key = 'shared-key-0001'
        const first = await execute(target, 'fuzz-paid', { text: 'mine' }, { ...walletHeader(mine.token), 'idempotency-key': key })
        t.equal(first.status, 200)
        const second = await execute(target, 'fuzz-paid', { text: 'mine' }, { ...walletHeader(theirs.token), 'idempotency-key': key })
        t.equal(second.status, 200)
        t.not(second.headers['idempotent-replayed'], 'true', 'another wallet\'s key is not replayed to it')
        t.equal(await balance(target, theirs.id), 1 - PAID_PRICE, 'and the other wallet paid for its own call')
      })

      t.test('API2:2023 Broken Authentication: wrong, absent and malformed credentials; tokens unguessable; auth before the body', async (t) => {
        const wrong = [
          {}, bearer(''), bearer(ADMIN_TOKEN.slice(0, -1)), bearer(`${ADMIN_TOKEN}x`), bearer(ADMIN_TOKEN.toUpperCase()),
          { authorization: ADMIN_TOKEN }, { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
          bearer(alice.key), bearer(target.payer.token), bearer('x'.repeat(4000))
        ]
        for (const headers of wrong) {
          const response = await send(target.url, { method: 'GET', path: '/api/wallets', headers })
          t.equal(response.status, 401, `admin route with ${JSON.stringify(headers).slice(0, 60)}: 401`)
          t.equal(errorShapeProblem(response), null)
          t.notMatch(response.body.toString(), ADMIN_TOKEN, 'the answer does not echo the token')
        }
        for (const headers of [{}, bearer(alice.key.slice(0, -1)), bearer(`${alice.key}x`), bearer(target.payer.token)]) {
          const response = await sendJson(target.url, 'POST', '/api/bees', beeBody('sneaky', target.fakeBee.url), headers)
          t.equal(response.status, 401, `publishing with ${JSON.stringify(headers).slice(0, 40)}: 401`)
        }

        // 256-bit random secrets: a guess of the right shape finds nothing, one character off finds nothing.
        t.match(target.payer.token, /^awt_[A-Za-z0-9_-]{43}$/, 'wallet tokens carry 256 random bits')
        t.match(alice.key, /^apk_[A-Za-z0-9_-]{43}$/, 'publisher keys carry 256 random bits')
        const flip = (token: string) => token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')
        const guesses = [flip(target.payer.token), target.payer.token.slice(0, -1), ...Array.from({ length: 30 }, (_, i) => `awt_${String(i).padStart(43, 'A')}`)]
        const answers = await Promise.all(guesses.map(async (token) => await send(target.url, { method: 'GET', path: '/api/wallet', headers: walletHeader(token) })))
        t.same([...new Set(answers.map((answer) => answer.status))], [401], 'every guessed wallet token: 401')
        t.same([...new Set(answers.map((answer) => (answer.json as { code: string }).code))], ['WALLET_NOT_FOUND'], 'all alike, telling nothing')

        // Auth comes before the body: an unauthenticated caller learns nothing about what the body must be.
        for (const [method, path] of [['POST', '/api/wallets'], ['POST', '/api/publishers'], ['POST', `/api/wallets/${target.spare.id}/deposits`], ['POST', '/api/bees'], ['PATCH', '/api/bees/fuzz-spare']]) {
          const response = await send(target.url, { method: method as string, path: path as string, headers: { 'content-type': 'application/json' }, body: '{"balance":"lots","amount":-1,"email":7,"id":"A B"}' })
          t.equal(response.status, 401, `${method} ${path} without credentials and with a bad body: 401, not 400`)
        }
      })

      t.test('API3:2023 Broken Object Property Level Authorization: server-set fields cannot be mass-assigned or read', async (t) => {
        const published = await sendJson(target.url, 'POST', '/api/bees', {
          ...beeBody('mass-assigned', target.fakeBee.url),
          ownerId: bob.id,
          ownerEmail: 'bob@example.com',
          signingSecret: 'bsk_chosen',
          status: 'deprecated',
          type: 'builtin',
          createdAt: '2000-01-01T00:00:00Z'
        }, bearer(alice.key))
        t.equal(published.status, 201)
        const record = published.json as Record<string, unknown>
        t.equal(record.ownerId, alice.id, 'ownerId is the caller, not the one sent')
        t.not(record.signingSecret, 'bsk_chosen', 'the signing secret is the server\'s')
        t.equal(record.status, 'active')
        t.equal(record.type, 'remote')
        const secret = record.signingSecret as string

        const patched = await sendJson(target.url, 'PATCH', '/api/bees/mass-assigned', { ownerId: bob.id, signingSecret: 'bsk_chosen', type: 'builtin', name: 'Renamed' }, bearer(alice.key))
        t.ok(patched.status === 200 || patched.status === 400, `PATCH with server-set fields: ${patched.status}`)
        t.equal((await sendJson(target.url, 'PATCH', '/api/bees/mass-assigned', { name: 'Bob\'s now' }, bearer(bob.key))).status, 404, 'Bob did not become its owner')
        const detail = (await send(target.url, { method: 'GET', path: '/api/bees/mass-assigned' })).json as Record<string, unknown>
        t.equal(detail.ownerId, alice.id)
        target.fakeBee.calls.length = 0
        t.equal((await execute(target, 'mass-assigned', { text: 'signed?' })).status, 200)
        const call = target.fakeBee.calls[0]
        const expected = `v1=${createHmac('sha256', secret).update(`${String(call?.headers['x-apiary-timestamp'])}.${call?.body}`).digest('hex')}`
        t.equal(call?.headers['x-apiary-signature'], expected, 'calls are still signed with the secret the server issued')

        t.equal((await sendJson(target.url, 'PATCH', '/api/bees/text-summarizer', { status: 'inactive' }, bearer(alice.key))).status, 403, 'a publisher cannot set a built-in Bee\'s status')

        const wallet = await sendJson(target.url, 'POST', '/api/wallets', { balance: 1, id: 'wal_chosen', token: 'awt_chosen', frozen: true, createdAt: '2000-01-01T00:00:00Z' }, admin)
        t.equal(wallet.status, 201)
        t.not((wallet.json as { id: string }).id, 'wal_chosen')
        t.not((wallet.json as { token: string }).token, 'awt_chosen')

        // Excessive data exposure: no secret or hash in any read.
        const reads = await Promise.all([
          send(target.url, { method: 'GET', path: '/api/bees?limit=500' }),
          send(target.url, { method: 'GET', path: '/api/bees/mass-assigned' }),
          send(target.url, { method: 'GET', path: '/api/wallet', headers: walletHeader(target.payer.token) }),
          send(target.url, { method: 'GET', path: `/api/wallets/${target.payer.id}`, headers: admin }),
          send(target.url, { method: 'GET', path: '/api/wallets?limit=200', headers: admin })
        ])
        for (const read of reads) {
          const text = read.body.toString()
          t.notMatch(text, /bsk_|awt_[A-Za-z0-9_-]{43}|apk_[A-Za-z0-9_-]{43}|tokenHash|token_hash|keyHash|key_hash|signingSecret/, `no secret or hash in ${text.slice(0, 40)}…`)
          t.notMatch(text, /upstreamEndpoint|ownerEmail/, 'nor the publisher-only fields')
        }
        const document = (await send(target.url, { method: 'GET', path: '/openapi/openapi.json' })).body.toString()
        t.notMatch(document, /bsk_|awt_[A-Za-z0-9_-]{43}|apk_[A-Za-z0-9_-]{43}|https?:\/\/127\.0\.0\.1/, 'the OpenAPI document shows no secret and no upstream endpoint')
      })

      t.test('API4:2023 Unrestricted Resource Consumption: bodies, nesting, errors, ids, page sizes and formats are bounded', async (t) => {
        const huge = await send(target.url, { method: 'POST', path: '/api/bees/text-summarizer/execute', headers: { 'content-type': 'application/json' }, body: `{"text":"${'a'.repeat(2 * 1024 * 1024)}"}` })
        t.equal(huge.status, 413, 'a body over BODY_LIMIT_BYTES: 413')
        const deep = await send(target.url, { method: 'POST', path: '/api/bees/fuzz-free/execute', headers: { 'content-type': 'application/json' }, body: `{"text":"a","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}` })
        t.equal((deep.json as { code: string }).code, 'BODY_TOO_DEEP', 'deep JSON: 400 BODY_TOO_DEEP')

        await publishBee(target.url, alice, beeBody('many-items', target.fakeBee.url, {
          inputSchema: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } }
        }))
        const items = `{"items":[${'1,'.repeat(300_000)}1]}`
        const many = await send(target.url, { method: 'POST', path: '/api/bees/many-items/execute', headers: { 'content-type': 'application/json' }, body: items })
        t.equal(many.status, 400)
        t.ok(many.body.length < 64 * 1024, `300,000 wrong items: the 400 answer is small (${many.body.length} bytes)`)
        t.ok(many.ms < 2000, `and quick (${Math.round(many.ms)} ms)`)

        const longId = 'r'.repeat(15_000)
        const paid = await execute(target, 'fuzz-paid', { text: 'id' }, { ...walletHeader(target.payer.token), 'x-request-id': longId })
        const echoed = String(paid.headers['x-request-id'] ?? '')
        t.ok(paid.status === 400 || echoed.length <= 200, `a 15 kB X-Request-Id is refused or replaced (echoed ${echoed.length} chars)`)
        const stored = (await journal(target, target.payer.id)).map((entry) => entry.requestId?.length ?? 0)
        t.ok(Math.max(...stored) <= 200, `nor stored in the journal (longest ${Math.max(...stored)} chars)`)

        for (const [path, headers] of [['/api/bees?limit=Infinity', {}], ['/api/bees?limit=1e400', {}], ['/api/wallets?limit=Infinity', admin], ['/api/wallets?limit=-Infinity', admin], [`/api/wallets/${target.spare.id}/journal?limit=1e400`, admin]] as const) {
          const response = await send(target.url, { method: 'GET', path, headers })
          t.equal(response.status, 400, `${path}: 400, a page size is a finite integer in range`)
        }

        // A publisher's schema must not let one unauthenticated request freeze the event loop (format: url is quadratic).
        const ReDoS = await sendJson(target.url, 'POST', '/api/bees', beeBody('url-format', target.fakeBee.url, {
          inputSchema: { type: 'object', properties: { u: { type: 'string', format: 'url', maxLength: 200 } } }
        }), bearer(alice.key))
        if (ReDoS.status === 201) {
          const attack = send(target.url, { method: 'POST', path: '/api/bees/url-format/execute', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ u: `http://[${':'.repeat(60_000)}` }) })
          await new Promise((resolve) => setTimeout(resolve, 20))
          const health = await send(target.url, { method: 'GET', path: '/health' })
          const answer = await attack
          t.ok(health.ms < 100, `/health answers within 100 ms while a 60 kB "url" is validated (${Math.round(health.ms)} ms)`)
          t.ok(answer.ms < 2000, `the attack is answered within 2 s (${Math.round(answer.ms)} ms)`)
        } else {
          t.equal(ReDoS.status, 400, 'or the unsafe format is refused at publish time')
        }
      })

      t.test('API5:2023 Broken Function Level Authorization: publisher keys and wallet tokens open no admin function', async (t) => {
        const adminOnly = Object.entries(target.document.paths).flatMap(([path, item]) =>
          (['get', 'post', 'patch', 'delete'] as const).filter((method) => {
            const security = item?.[method]?.security ?? []
            return security.length > 0 && security.every((requirement) => Object.keys(requirement).includes('adminToken'))
          }).map((method) => [method.toUpperCase(), path.replace('{id}', target.spare.id)] as const))
        t.ok(adminOnly.length >= 8, `${adminOnly.length} admin-only operations in the document`)
        const walletsBefore = ((await send(target.url, { method: 'GET', path: '/api/wallets?limit=200', headers: admin })).json as { wallets: unknown[] }).wallets.length
        for (const [method, path] of adminOnly) {
          for (const [who, headers] of [['publisher key', bearer(alice.key)], ['wallet token', { ...bearer(target.payer.token), ...walletHeader(target.payer.token) }]] as const) {
            const response = await sendJson(target.url, method, path, method === 'GET' ? undefined : { balance: 5, amount: 5, email: 'x@example.com', name: 'X' }, headers)
            t.ok(response.status === 401 || response.status === 403, `${method} ${path} with a ${who}: ${response.status}`)
          }
        }
        const walletsAfter = ((await send(target.url, { method: 'GET', path: '/api/wallets?limit=200', headers: admin })).json as { wallets: unknown[] }).wallets.length
        t.equal(walletsAfter, walletsBefore, 'no wallet was created')
        t.equal(await balance(target, target.spare.id), 10, 'no deposit was made')

        const override = await send(target.url, { method: 'POST', path: '/api/bees/other-bee/execute', headers: { 'content-type': 'application/json', 'x-http-method-override': 'DELETE', ...bearer(alice.key) }, body: '{"text":"x"}' })
        t.not(override.status, 204, 'X-HTTP-Method-Override is not honoured')
        t.equal((await send(target.url, { method: 'GET', path: '/api/bees/other-bee' })).status, 200, 'Bob\'s Bee is still there')
        const publishAsAdmin = await sendJson(target.url, 'POST', '/api/bees', beeBody('admin-bee', target.fakeBee.url), admin)
        t.equal((publishAsAdmin.json as { code: string }).code, 'PUBLISHER_REQUIRED', 'even the admin token does not publish in no one\'s name')
      })

      t.test('API6:2023 Unrestricted Access to Sensitive Business Flows: concurrent paid calls never overdraw, a key charges once', async (t) => {
        const n = 15
        const wallet = await createWallet(target.url, n * PAID_PRICE)
        const answers = await Promise.all(Array.from({ length: 3 * n }, async (_, i) => await execute(target, 'fuzz-paid', { text: `call ${i}` }, walletHeader(wallet.token))))
        const statuses = answers.map((answer) => answer.status)
        t.equal(statuses.filter((status) => status === 200).length, n, `3N concurrent calls on an N-call wallet: exactly N (${n}) 200s`)
        t.equal(statuses.filter((status) => status === 402).length, 2 * n, 'the rest 402')
        t.equal(await balance(target, wallet.id), 0, 'the balance ends at 0, never below')
        const entries = await journal(target, wallet.id)
        const charges = entries.filter((entry) => entry.kind === 'charge' || entry.kind === 'capture').length
        t.equal(charges, n, 'N charges journaled')

        const keyed = await createWallet(target.url, 10 * PAID_PRICE)
        const replays = await Promise.all(Array.from({ length: 20 }, async () => await execute(target, 'fuzz-paid', { text: 'once' }, { ...walletHeader(keyed.token), 'idempotency-key': 'one-key' })))
        t.ok(replays.every((answer) => answer.status === 200 || answer.status === 409), '20 concurrent calls with one key: 200 or 409 in flight')
        t.equal(Math.round(await balance(target, keyed.id) * 1e6), Math.round(9 * PAID_PRICE * 1e6), 'charged exactly once')

        await send(target.url, { method: 'POST', path: `/api/wallets/${keyed.id}/freeze`, headers: admin })
        t.equal((await execute(target, 'fuzz-paid', { text: 'frozen' }, walletHeader(keyed.token))).status, 402, 'a frozen wallet cannot pay')
      })

      t.test('API8:2023 Security Misconfiguration: security headers, no-store on secrets, no X-Powered-By, 405 with Allow', async (t) => {
        for (const path of ['/docs/', '/api/bees', '/health', '/openapi/openapi.json', '/api/no-such-route']) {
          const response = await send(target.url, { method: 'GET', path })
          t.equal(response.headers['x-content-type-options'], 'nosniff', `${path}: X-Content-Type-Options nosniff`)
          const csp = String(response.headers['content-security-policy'] ?? '')
          t.ok(/frame-ancestors/.test(csp) || response.headers['x-frame-options'] !== undefined, `${path}: framing is forbidden`)
          t.equal(response.headers['x-powered-by'], undefined, `${path}: no X-Powered-By`)
        }
        const docs = await send(target.url, { method: 'GET', path: '/docs/' })
        t.match(String(docs.headers['content-security-policy'] ?? ''), /default-src|script-src/, '/docs has a content security policy')
        t.equal((await send(target.url, { method: 'GET', path: '/docs/static/swagger-initializer.js' })).status, 200, 'and Swagger UI still loads its scripts')

        const secrets = [
          await sendJson(target.url, 'POST', '/api/wallets', { balance: 1 }, admin),
          await sendJson(target.url, 'POST', '/api/publishers', { email: 'carol@example.com', name: 'Carol' }, admin),
          await sendJson(target.url, 'POST', '/api/bees', beeBody('no-store', target.fakeBee.url), bearer(alice.key)),
          await send(target.url, { method: 'GET', path: '/api/wallet', headers: walletHeader(target.payer.token) })
        ]
        for (const response of secrets) {
          t.match(String(response.headers['cache-control'] ?? ''), /no-store/, `an answer with a secret or a wallet (${response.status}) is Cache-Control: no-store`)
        }

        for (const [method, path] of [['DELETE', '/api/wallets'], ['PUT', '/api/bees/text-summarizer'], ['GET', '/api/bees/text-summarizer/execute'], ['DELETE', '/api/publishers']]) {
          const response = await send(target.url, { method: method as string, path: path as string })
          t.equal(response.status, 405, `${method} ${path}: 405, the path exists`)
          t.ok(response.headers.allow !== undefined, `${method} ${path}: Allow names the methods`)
          t.equal(errorShapeProblem(response), null)
        }
        t.equal((await send(target.url, { method: 'GET', path: '/api/nothing-here' })).status, 404, 'an unknown path: 404')
      })

      t.test('API10:2023 Unsafe Consumption of APIs: a misbehaving upstream is a 502/504, refunded', async (t) => {
        const wallet = await createWallet(target.url, 1)
        const cases: Array<[FakeBeeMode, number, string]> = [
          ['not-json', 502, 'BEE_OUTPUT_INVALID'], ['oversize', 502, 'BEE_RESPONSE_TOO_LARGE'], ['too-deep', 502, 'BEE_OUTPUT_INVALID'],
          ['invalid-output', 502, 'BEE_OUTPUT_INVALID'], ['not-object', 502, 'BEE_OUTPUT_INVALID'], ['error', 502, 'BEE_UPSTREAM_ERROR'], ['slow', 504, 'BEE_TIMEOUT']
        ]
        for (const [mode, status, code] of cases) {
          target.fakeBee.mode = mode
          const response = await execute(target, 'fuzz-paid', { text: mode }, walletHeader(wallet.token))
          t.equal(response.status, status, `the Bee answers ${mode}: ${status}`)
          t.equal((response.json as { code: string }).code, code)
          t.equal(await balance(target, wallet.id), 1, 'and the wallet is whole again')
        }
        target.fakeBee.mode = 'ok'

        // A published Bee that redirects to the metadata service: the redirect is not followed.
        const redirecting = await publishBee(target.url, alice, beeBody('redirecting', `${upstream.url}/bee`, { pricing: paidPricing }))
        t.ok(redirecting.id)
        let metadataHit = false
        upstream.handle = (request, response) => {
          if (request.url === '/latest/meta-data') metadataHit = true
          response.writeHead(302, { location: `${upstream.url}/latest/meta-data` }).end()
        }
        const redirected = await execute(target, 'redirecting', { text: 'go' }, walletHeader(wallet.token))
        t.equal(redirected.status, 502, 'a redirect is an upstream error')
        t.notOk(metadataHit, 'the redirect was not followed')
        t.equal(await balance(target, wallet.id), 1, 'refunded')

        // Open-Meteo answering 200 with a body that is not a forecast.
        for (const body of ['null', '[]', '"text"', '{"current":null}', '{"current":{"time":"soon","temperature_2m":"hot"}}', '<html></html>']) {
          upstream.handle = (_request, response) => { response.writeHead(200, { 'content-type': 'application/json' }).end(body) }
          const response = await execute(target, 'weather-sensor', { latitude: 10, longitude: 10 }, walletHeader(wallet.token))
          t.equal(response.status, 502, `Open-Meteo answers ${body}: 502`)
          t.equal((response.json as { code: string }).code, 'WEATHER_UPSTREAM_ERROR')
          t.equal(await balance(target, wallet.id), 1, 'refunded')
        }
      })

      t.test('the server survived the attacks', async (t) => {
        t.equal(target.server.child.exitCode, null, 'the process is alive')
        t.equal((await send(target.url, { method: 'GET', path: '/health' })).status, 200)
      })
    })
  }
}

test('API7:2023 Server Side Request Forgery: endpoints at internal addresses are refused in every spelling', async (t) => {
  const server = await build(t)
  const publisher = await createPublisherInProcess(server, 'Mallory')
  const endpoints = [
    'https://127.0.0.1/x', 'https://127.1/x', 'https://2130706433/x', 'https://0x7f000001/x', 'https://0177.0.0.1/x', 'https://127.000.000.001/x',
    'https://0.0.0.0/x', 'https://0/x', 'https://localhost/x', 'https://localhost./x', 'https://LOCALHOST/x', 'https://vm/x',
    'https://169.254.169.254/latest/meta-data', 'https://2852039166/latest/meta-data', 'https://[::ffff:169.254.169.254]/x', 'https://[::ffff:a9fe:a9fe]/x',
    'https://[::1]/x', 'https://[::]/x', 'https://[::ffff:127.0.0.1]/x', 'https://[::127.0.0.1]/x', 'https://[0:0:0:0:0:ffff:7f00:1]/x', 'https://[fe80::1]/x',
    'https://[fd00:ec2::254]/x', 'https://[64:ff9b::a9fe:a9fe]/x', 'https://[2002:7f00:1::]/x',
    'https://10.0.0.1/x', 'https://172.16.0.1/x', 'https://192.168.1.1/x', 'https://100.64.0.1/x', 'https://198.18.0.1/x', 'https://224.0.0.1/x',
    'http://example.com/x', 'https://user:pass@example.com/x', 'file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'ftp://example.com/x',
    'https://no-such-host.invalid/x', 'not a url', '//127.0.0.1/x'
  ]
  for (const endpoint of endpoints) {
    const response = await server.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('ssrf', endpoint) })
    t.equal(response.statusCode, 400, `publishing ${endpoint}: 400`)
    t.equal(response.json().code, 'ENDPOINT_FORBIDDEN', endpoint)
  }
  // Publishing somewhere harmless and moving the endpoint inside afterwards is refused too.
  const allowed = await build(t, { env: { EGRESS_ALLOWLIST: 'bees.internal' } })
  const owner = await createPublisherInProcess(allowed, 'Owner')
  const initial = await allowed.inject({ method: 'POST', url: '/api/bees', headers: owner.headers, payload: beeBody('moving', 'http://bees.internal/x') })
  t.equal(initial.statusCode, 400, 'an allow-listed name that does not resolve is refused')
  const published = await allowed.inject({ method: 'POST', url: '/api/bees', headers: owner.headers, payload: beeBody('moving', 'https://127.0.0.1/x') })
  t.equal(published.statusCode, 400)
  const target = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const mover = await createPublisherInProcess(target, 'Mover')
  t.equal((await target.inject({ method: 'POST', url: '/api/bees', headers: mover.headers, payload: beeBody('mover', 'http://127.0.0.1:9/x') })).statusCode, 201)
  for (const endpoint of ['https://169.254.169.254/x', 'https://127.0.0.2/x', 'https://[::1]/x', 'https://10.0.0.1/x']) {
    const moved = await target.inject({ method: 'PATCH', url: '/api/bees/mover', headers: mover.headers, payload: { endpoint } })
    t.equal(moved.json().code, 'ENDPOINT_FORBIDDEN', `PATCH to ${endpoint}: refused although 127.0.0.1 is allow-listed`)
  }
})

test('API8:2023 Security Misconfiguration: a 500 carries no stack trace or internals', async (t) => {
  const config = loadConfig({ DATABASE_URL: ':memory:', ADMIN_TOKEN })
  const server = Fastify({ ...serverOptions(config), logger: false })
  await server.register(fp(app), { config })
  server.get('/boom', async () => { throw new Error('connect ECONNREFUSED 10.1.2.3:5432 at /srv/apiary/src/ledger/sql-store.ts:42') })
  await server.ready()
  t.teardown(() => server.close())
  const response = await server.inject('/boom')
  t.equal(response.statusCode, 500)
  t.same(Object.keys(response.json()).sort(), ['code', 'error', 'message'])
  t.notMatch(response.body, /ECONNREFUSED|10\.1\.2\.3|\/srv|sql-store|\bat\s/, 'nothing of the error reaches the client')
})

test('API9:2023 Improper Inventory Management: every route is in the OpenAPI document, and every operation is a route', async (t) => {
  const config = loadConfig({ DATABASE_URL: ':memory:', ADMIN_TOKEN })
  const server = Fastify({ ...serverOptions(config), logger: false })
  const routes: Array<{ method: string, url: string, hidden: boolean }> = []
  server.addHook('onRoute', (route) => {
    // A parameter's regex (`:id([^.]+)`) narrows what the router takes; the documented path names the parameter only.
    const url = route.url.replace(/(:\w+)\([^)]*\)/g, '$1')
    for (const method of [route.method].flat()) routes.push({ method, url, hidden: (route.schema as { hide?: boolean } | undefined)?.hide === true })
  })
  await server.register(fp(app), { config })
  await server.ready()
  t.teardown(() => server.close())
  const publisher = await createPublisherInProcess(server, 'Inventory')
  t.equal((await server.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('listed', 'https://93.184.216.34/x') })).statusCode, 201)
  const document = (await server.inject('/openapi/openapi.json')).json<OpenAPIV3.Document>()
  const documented = new Set(Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`)))
  // The documentation itself (Swagger UI and the document) is the one thing not described in the document.
  // The authorization server's own endpoints (oidc-provider's, handed the raw request) are inventoried by its RFC 8414
  // metadata, which the document does list, not by the OpenAPI document.
  const isAuthorizationServer = (url: string) => PROVIDER_ENDPOINTS.some((endpoint) => endpoint.url === url)
  const isDocumentation = (url: string) => url === '/docs' || url.startsWith('/docs/') || url === '/openapi/openapi.json' || isAuthorizationServer(url)
  const served = routes.filter((route) => route.method !== 'HEAD' && !isDocumentation(route.url))
  t.same(served.filter((route) => !documented.has(`${route.method} ${route.url}`)).map((route) => `${route.method} ${route.url}`), [], 'no undocumented route')
  t.same(routes.filter((route) => route.hidden && !isDocumentation(route.url)).map((route) => route.url), [], 'only the documentation is hidden')
  const servedKeys = new Set(served.map((route) => `${route.method} ${route.url}`))
  const ghosts = [...documented].filter((key) => !servedKeys.has(key) && !/^POST \/api\/bees\/[a-z0-9-]+\/execute$/.test(key))
  t.same(ghosts, [], 'every documented operation is served')
  const own = (await server.inject('/api/bees/listed/openapi.json')).json<OpenAPIV3.Document>()
  t.ok(own.paths['/api/bees/listed/execute']?.post, 'a published Bee has its own document as soon as it is published')
  const removed = await server.inject({ method: 'DELETE', url: '/api/bees/listed', headers: adminHeaders })
  t.equal(removed.statusCode, 204)
  t.equal((await server.inject('/api/bees/listed/openapi.json')).statusCode, 404, 'and none once removed')
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item ?? {}) as Array<[string, OpenAPIV3.OperationObject]>) {
      t.ok((operation.tags?.length ?? 0) > 0 && operation.summary !== undefined, `${method.toUpperCase()} ${path} has tags and a summary`)
    }
  }
})
