import { execFile } from 'node:child_process'
import type { AddressInfo } from 'node:net'
import { promisify } from 'node:util'
import { decodeProtectedHeader } from 'jose'
import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import type { WalletToken } from '../../../src/core/ledger/tokens/token-repository.js'
import { SigningKeyring } from '../../../src/core/tokens/keyring.js'
import { TokenSigner } from '../../../src/core/tokens/verifier.js'
import { backends } from '../../databases.js'
import { build, createWallet, SECRETS_KEY } from '../../helper.js'
import { minted } from '../../tokens-helper.js'

const DAY_MS = 24 * 3600 * 1000

/** What a gateway runs: jose in a process of its own, given only the JWKS URL. Prints each token's subject, or its error code. */
const GATEWAY = `
import { createRemoteJWKSet, jwtVerify } from 'jose'
const keys = createRemoteJWKSet(new URL(process.env.JWKS_URL))
const results = []
for (const token of JSON.parse(process.env.TOKENS)) {
  try {
    const { payload } = await jwtVerify(token, keys, { issuer: 'apiary', algorithms: ['EdDSA'] })
    results.push(payload.sub)
  } catch (error) {
    results.push(error.code)
  }
}
console.log(JSON.stringify(results))
`

async function verifyElsewhere (jwksUrl: string, tokens: string[]): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', GATEWAY], {
    env: { PATH: process.env.PATH, JWKS_URL: jwksUrl, TOKENS: JSON.stringify(tokens) }
  })
  return JSON.parse(stdout) as string[]
}

const tamper = (token: string) => {
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>
  return `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'wal_someone_else' })).toString('base64url')}.${signature}`
}

test('a gateway verifies tokens offline with only the JWKS, before and after a key rotation', async (t) => {
  const app = await build(t)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const jwksUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/.well-known/jwks.json`
  const wallet = await createWallet(app, 1)
  const old = await minted(app, wallet.token, { cap: 1 })

  const served = await fetch(jwksUrl)
  t.equal(served.status, 200)
  t.match(served.headers.get('cache-control'), /max-age=/)
  const set = await served.json() as { keys: Array<Record<string, unknown>> }
  t.equal(set.keys.length, 1)
  t.match(set.keys[0], { kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig', kid: decodeProtectedHeader(old.token).kid })
  t.notOk('d' in (set.keys[0] ?? {}), 'no private part')
  const again = await fetch(jwksUrl, { headers: { 'if-none-match': served.headers.get('etag') ?? '' } })
  t.equal(again.status, 304, 'ETag')

  // Another instance, a rotation period later: it creates the next key, which the JWKS publishes beside the first.
  const later = new SigningKeyring(app.ledger.signingKeys, { rotationSeconds: 30 * 24 * 3600, clock: () => Date.now() + 30 * DAY_MS })
  const row = await app.ledger.tokens.get((await minted(app, wallet.token, { cap: 1 })).id) as WalletToken
  // Signed by the later instance, with an expiry in its own period.
  const rotated = await new TokenSigner(later).sign({ ...row, expiresAt: new Date(Date.now() + 31 * DAY_MS).toISOString() }, 'USD')
  t.not(decodeProtectedHeader(rotated).kid, decodeProtectedHeader(old.token).kid, 'the new token carries the new kid')
  t.equal((await (await fetch(jwksUrl)).json() as { keys: unknown[] }).keys.length, 2, 'the old key stays published')

  t.same(await verifyElsewhere(jwksUrl, [old.token, rotated, tamper(old.token), tamper(rotated)]),
    [wallet.id, wallet.id, 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'])
  t.match(await app.walletTokens.signer.verify(rotated), { ok: true }, 'the service verifies the other instance\'s key too')
})

for (const backend of backends) {
  test(`instances that rotate at once agree on one key (${backend.name})`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    // Opened one after the other: two SQLite processes starting together would race the first migration.
    const stores = [await openStore(database.url, { secretsKey: SECRETS_KEY }), await openStore(database.url, { secretsKey: SECRETS_KEY })]
    t.teardown(() => Promise.all(stores.map((store) => store.close())))
    const clock = () => Date.parse('2030-01-01T00:00:00Z')
    const keyrings = stores.flatMap((store) => [1, 2, 3].map(() => new SigningKeyring(store.signingKeys, { rotationSeconds: 3600, clock })))
    const kids = new Set((await Promise.all(keyrings.map((keyring) => keyring.signingKey()))).map((key) => key.kid))
    t.equal(kids.size, 1, 'one key for the slot')
    const [first] = keyrings
    t.equal((await first?.jwks())?.keys.length, 1)
  })
}
