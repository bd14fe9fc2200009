import { SignJWT } from 'jose'
import { test } from 'tap'
import { openStore } from '../../../src/core/ledger/open-store.js'
import type { WalletToken } from '../../../src/core/ledger/tokens/token-repository.js'
import { SigningKeyring } from '../../../src/core/tokens/keyring.js'
import { TOKEN_ISSUER, TokenSigner } from '../../../src/core/tokens/verifier.js'
import { SECRETS_KEY } from '../../helper.js'

const START = Date.parse('2030-01-01T00:00:00Z')

async function setup (t: { teardown (fn: () => unknown): void }) {
  const store = await openStore(':memory:', { secretsKey: SECRETS_KEY })
  t.teardown(() => store.close())
  let now = START
  const keyring = new SigningKeyring(store.signingKeys, { rotationSeconds: 30 * 24 * 3600, clock: () => now })
  const row: WalletToken = {
    id: 'tok_1',
    walletId: 'wal_1',
    parentId: null,
    path: '/tok_1/',
    capMicros: 1_000_000,
    spentMicros: 0,
    perCallCapMicros: null,
    bees: null,
    categories: null,
    label: null,
    expiresAt: new Date(START + 3600_000).toISOString(),
    revokedAt: null,
    createdAt: new Date(START).toISOString()
  }
  return { keyring, signer: new TokenSigner(keyring), row, setNow: (ms: number) => { now = ms } }
}

test('a token verified once is verified again from memory, to the same answers as the signature check gives', async (t) => {
  const { signer, row, setNow } = await setup(t)
  const token = await signer.sign(row, 'USD')
  const [header, payload, signature] = token.split('.') as [string, string, string]
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>
  const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'wal_someone_else' })).toString('base64url')}.${signature}`

  for (const round of ['first', 'remembered']) {
    t.same(await signer.verify(token), { ok: true, walletId: 'wal_1', tokenId: 'tok_1' }, round)
    t.same(await signer.verify(forged), { ok: false, reason: 'TOKEN_INVALID' }, `${round}: an altered token is refused`)
    t.same(await signer.verify(token, 'https://apiary.example/mcp'), { ok: false, reason: 'TOKEN_INVALID' }, `${round}: not for an audience it does not name`)
  }
  // jose's rule, kept by the remembered token: valid until the second of its expiry, expired from then on.
  setNow(START + 3600_000 - 1001)
  t.match(await signer.verify(token), { ok: true }, 'a second before its expiry')
  setNow(START + 3600_000)
  t.same(await signer.verify(token), { ok: false, reason: 'TOKEN_EXPIRED' }, 'at its expiry')
  t.same(await signer.verify(token), { ok: false, reason: 'TOKEN_EXPIRED' }, 'and after')
})

test('a token with a not-before time is checked against it at every verification', async (t) => {
  const { keyring, signer, setNow } = await setup(t)
  const { kid, key } = await keyring.signingKey()
  const notBefore = Math.floor(START / 1000) + 60
  const token = await new SignJWT({}).setProtectedHeader({ alg: 'EdDSA', kid }).setIssuer(TOKEN_ISSUER).setSubject('wal_1').setJti('tok_1')
    .setNotBefore(notBefore).setExpirationTime(notBefore + 3600).sign(key)
  t.same(await signer.verify(token), { ok: false, reason: 'TOKEN_INVALID' }, 'before its time')
  setNow(notBefore * 1000)
  t.match(await signer.verify(token), { ok: true }, 'from its time')
  setNow(START)
  t.same(await signer.verify(token), { ok: false, reason: 'TOKEN_INVALID' }, 'before it again (a clock set back): not answered from memory')
})
