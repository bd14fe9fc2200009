import { createHmac, randomBytes } from 'node:crypto'
import { existsSync, statSync } from 'node:fs'
import type { IncomingHttpHeaders } from 'node:http'
import Database from 'better-sqlite3'
import { test } from 'tap'
import { adminHeaders, build } from '../../helper.js'
import { signatureIsValid, startFakeBee } from '../../fake-bee.js'
import { sqliteBackend } from '../../databases.js'
import { beeBody, createPublisher, publish } from '../../publishing-helper.js'

const allow = { EGRESS_ALLOWLIST: '127.0.0.1' }

/** The publisher's check of a rotated call: any one `v1=` entry matching its secret is enough. */
function anyEntryValid (secret: string, headers: IncomingHttpHeaders, body: string): boolean {
  const expected = `v1=${createHmac('sha256', secret).update(`${String(headers['x-apiary-timestamp'])}.${body}`).digest('hex')}`
  return String(headers['x-apiary-signature']).split(',').includes(expected)
}

test('a publisher rotates its own key: the new key works, the old one stops at once', async (t) => {
  const app = await build(t)
  const publisher = await createPublisher(app)
  const rival = await createPublisher(app, 'Rival')
  const rotate = (id: string, headers: Record<string, string> = {}) => app.inject({ method: 'POST', url: `/api/publishers/${id}/key/rotate`, headers })

  t.equal((await rotate(publisher.id)).statusCode, 401, 'unauthenticated')
  const byRival = await rotate(publisher.id, rival.headers)
  t.equal(byRival.statusCode, 404, 'someone else\'s key cannot be rotated')
  t.equal(byRival.json().code, 'PUBLISHER_NOT_FOUND')

  const rotated = await rotate(publisher.id, publisher.headers)
  t.equal(rotated.statusCode, 200)
  t.equal(rotated.headers['cache-control'], 'no-store')
  t.match(rotated.json(), { id: publisher.id, email: 'acme@example.com', key: /^apk_[A-Za-z0-9_-]{43}$/ })
  const newKey = rotated.json().key as string
  t.not(newKey, publisher.key)
  t.equal((await rotate(publisher.id, publisher.headers)).statusCode, 401, 'the old key is revoked')
  const renewed = { authorization: `Bearer ${newKey}` }
  t.equal((await app.inject({ method: 'POST', url: '/api/bees', headers: renewed, payload: {} })).statusCode, 400, 'the new key authenticates')

  const byAdmin = await rotate(publisher.id, adminHeaders)
  t.equal(byAdmin.statusCode, 200, 'the operator rotates (and so revokes) any key')
  t.equal((await rotate(publisher.id, renewed)).statusCode, 401)
  t.equal((await rotate('pub_nobody', adminHeaders)).json().code, 'PUBLISHER_NOT_FOUND')
})

test('a rotated signing secret: both sign during the overlap, the new one alone after', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: allow })
  const publisher = await createPublisher(app)
  const rival = await createPublisher(app, 'Rival')
  const old = await publish(app, publisher.headers, beeBody('roller', fake.url))
  const rotate = (headers: Record<string, string>) => app.inject({ method: 'POST', url: '/api/bees/roller/signing-secret/rotate', headers })
  const call = async () => {
    t.equal((await app.inject({ method: 'POST', url: '/api/bees/roller/execute', payload: { text: 'hi' } })).statusCode, 200)
    return fake.calls.at(-1) ?? { headers: {}, body: '' }
  }

  const before = await call()
  t.ok(signatureIsValid(old.signingSecret, before.headers, before.body), 'one secret: the single-entry format, unchanged')

  t.equal((await rotate({})).statusCode, 401)
  t.equal((await rotate(rival.headers)).statusCode, 404, 'someone else\'s Bee looks absent')
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/signing-secret/rotate', headers: adminHeaders })).statusCode, 404, 'built-ins have none')
  const rotated = await rotate(publisher.headers)
  t.equal(rotated.statusCode, 200)
  t.equal(rotated.headers['cache-control'], 'no-store')
  const { signingSecret, previousSecretExpiresAt } = rotated.json()
  t.match(signingSecret, /^bsk_/)
  t.not(signingSecret, old.signingSecret)
  const overlap = Date.parse(previousSecretExpiresAt) - Date.now()
  t.ok(overlap > 23.9 * 3600_000 && overlap <= 24 * 3600_000, 'the default overlap is 24 h')

  const during = await call()
  t.match(String(during.headers['x-apiary-signature']), /^v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/, 'the new signature first, then the old')
  t.ok(anyEntryValid(signingSecret, during.headers, during.body), 'a publisher that moved to the new secret accepts it')
  t.ok(anyEntryValid(old.signingSecret, during.headers, during.body), 'one still on the old secret accepts it too')

  const byAdmin = await rotate(adminHeaders)
  t.equal(byAdmin.statusCode, 200, 'the operator rotates any Bee\'s secret')
  const after = await call()
  t.notOk(anyEntryValid(old.signingSecret, after.headers, after.body), 'a second rotation ends the first one\'s overlap')
  t.ok(anyEntryValid(signingSecret, after.headers, after.body))
  t.ok(anyEntryValid(byAdmin.json().signingSecret, after.headers, after.body))
})

test('with SIGNING_SECRET_OVERLAP_SECONDS=0 the old secret stops signing at once', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: { ...allow, SIGNING_SECRET_OVERLAP_SECONDS: '0' } })
  const publisher = await createPublisher(app)
  await publish(app, publisher.headers, beeBody('snap', fake.url))
  const rotated = (await app.inject({ method: 'POST', url: '/api/bees/snap/signing-secret/rotate', headers: publisher.headers })).json()
  t.equal(rotated.previousSecretExpiresAt, null)
  await app.inject({ method: 'POST', url: '/api/bees/snap/execute', payload: { text: 'hi' } })
  const last = fake.calls.at(-1) ?? { headers: {}, body: '' }
  t.ok(signatureIsValid(rotated.signingSecret, last.headers, last.body), 'a single v1 entry, byte for byte the usual format')
})

test('signing secrets are encrypted at rest; the key can be rotated; a wrong key stops start-up', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const database = sqliteBackend()
  t.teardown(database.drop)
  const keyA = randomBytes(32).toString('base64')
  const keyB = randomBytes(32).toString('hex')
  const env = (extra: Record<string, string>) => ({ env: { ...allow, DATABASE_URL: database.url, ...extra } })
  const rows = () => {
    const raw = new Database(database.url, { readonly: true })
    const found = raw.prepare('SELECT id, signing_secret, previous_signing_secret FROM published_bees ORDER BY id').all() as Array<Record<string, string | null>>
    raw.close()
    return found
  }
  const executes = async (app: Awaited<ReturnType<typeof build>>, id: string, secret: string) => {
    const response = await app.inject({ method: 'POST', url: `/api/bees/${id}/execute`, payload: { text: 'hi' } })
    const last = fake.calls.at(-1) ?? { headers: {}, body: '' }
    return response.statusCode === 200 && anyEntryValid(secret, last.headers, last.body)
  }

  const first = await build({ teardown: () => {} }, env({ SECRETS_KEY: keyA }))
  const publisher = await createPublisher(first)
  const one = await publish(first, publisher.headers, beeBody('one', fake.url))
  const rotated = (await first.inject({ method: 'POST', url: '/api/bees/one/signing-secret/rotate', headers: publisher.headers })).json()
  await first.close()
  const stored = JSON.stringify(rows())
  t.notOk(stored.includes('bsk_'), 'no signing secret, current or previous, is stored in plaintext')
  t.match(rows()[0], { signing_secret: /^enc1:[0-9a-f]{8}:/, previous_signing_secret: /^enc1:/ })

  // A row stored before encryption existed.
  const raw = new Database(database.url)
  raw.prepare(`INSERT INTO published_bees SELECT 'legacy', owner_id, owner_email, name, description, category, colony, endpoint,
    input_schema, output_schema, primary_services, pricing_type, cost_micros, currency, status, status_message, sunset_at,
    'bsk_legacy-secret', version, created_at, updated_at, NULL, NULL, NULL, NULL, change_seq, execution_mode, max_run_seconds, event_schema, semver, NULL, NULL FROM published_bees WHERE id = 'one'`).run()
  raw.prepare('UPDATE catalog_version SET version = version + 1').run()
  raw.close()

  await t.rejects(build({ teardown: () => {} }, env({ SECRETS_KEY: keyB })), /Wrong SECRETS_KEY: .*neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS/, 'a wrong key stops start-up')

  const second = await build(t, env({ SECRETS_KEY: keyB, SECRETS_KEY_PREVIOUS: keyA }))
  t.notOk(JSON.stringify(rows()).includes('bsk_'), 'the plaintext row was encrypted at start')
  t.equal(new Set(rows().map((row) => String(row.signing_secret).split(':')[1])).size, 1, 'every row is under the new key')
  t.ok(await executes(second, 'one', rotated.signingSecret), 'signing still works after the key rotation')
  t.ok(await executes(second, 'one', one.signingSecret), 'and the previous signing secret still signs in its overlap')
  t.ok(await executes(second, 'legacy', 'bsk_legacy-secret'), 'the legacy Bee signs with its secret')
  await second.close()
  const third = await build(t, env({ SECRETS_KEY: keyB }))
  t.ok(await executes(third, 'legacy', 'bsk_legacy-secret'), 'the old key is no longer needed once every row is resealed')
})

test('without SECRETS_KEY, SQLite keeps a generated key in a 0600 file next to the database', async (t) => {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const database = sqliteBackend()
  t.teardown(database.drop)
  const first = await build({ teardown: () => {} }, { env: { ...allow, DATABASE_URL: database.url, SECRETS_KEY: '' } })
  const publisher = await createPublisher(first)
  const published = await publish(first, publisher.headers, beeBody('plain', fake.url))
  await first.close()
  t.ok(existsSync(`${database.url}.key`))
  t.equal(statSync(`${database.url}.key`).mode & 0o777, 0o600)
  const again = await build(t, { env: { ...allow, DATABASE_URL: database.url, SECRETS_KEY: '' } })
  t.equal((await again.inject({ method: 'POST', url: '/api/bees/plain/execute', payload: { text: 'hi' } })).statusCode, 200)
  const last = fake.calls.at(-1) ?? { headers: {}, body: '' }
  t.ok(signatureIsValid(published.signingSecret, last.headers, last.body), 'the same key is read back on restart')
})
