import { test } from 'tap'
import { openStore } from '../../../../src/core/ledger/open-store.js'
import { backends } from '../../../databases.js'
import { SECRETS_KEY } from '../../../helper.js'

/** The authorization server's state is the ledger's, on both databases: found, consumed once, expired, revoked by grant. */
for (const backend of backends) {
  test(`OAuth models on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const store = await openStore(database.url, { secretsKey: SECRETS_KEY })
    t.teardown(() => store.close())
    const { oauth } = store
    const soon = new Date(Date.now() + 60_000).toISOString()

    await oauth.upsert('AuthorizationCode', 'c1', { payload: { kind: 'AuthorizationCode', grantId: 'g1' }, grantId: 'g1', uid: null, expiresAt: soon })
    await oauth.upsert('RefreshToken', 'r1', { payload: { kind: 'RefreshToken' }, grantId: 'g1', uid: null, expiresAt: soon })
    await oauth.upsert('Session', 's1', { payload: { uid: 'u1' }, grantId: null, uid: 'u1', expiresAt: soon })
    t.same((await oauth.find('AuthorizationCode', 'c1'))?.payload, { kind: 'AuthorizationCode', grantId: 'g1' })
    t.equal(await oauth.find('RefreshToken', 'c1'), null, 'ids are per model')
    t.equal((await oauth.findByUid('Session', 'u1'))?.payload.uid, 'u1')

    t.equal(await oauth.consume('AuthorizationCode', 'c1'), true, 'a code is consumed once')
    t.equal(await oauth.consume('AuthorizationCode', 'c1'), false, 'and only once')
    t.not((await oauth.find('AuthorizationCode', 'c1'))?.consumedAt, null)

    await oauth.upsert('RefreshToken', 'r1', { payload: { kind: 'RefreshToken', rotated: true }, grantId: 'g1', uid: null, expiresAt: soon })
    t.same((await oauth.find('RefreshToken', 'r1'))?.payload, { kind: 'RefreshToken', rotated: true }, 'an upsert replaces the payload')

    await oauth.revokeByGrantId('RefreshToken', 'g1')
    t.equal(await oauth.find('RefreshToken', 'r1'), null, 'revoked with its grant')
    t.not(await oauth.find('AuthorizationCode', 'c1'), null, 'other models are revoked on their own call')

    await oauth.upsert('Interaction', 'i1', { payload: {}, grantId: null, uid: null, expiresAt: new Date(Date.now() - 1000).toISOString() })
    t.equal(await oauth.find('Interaction', 'i1'), null, 'an expired row reads as absent')
    await oauth.destroy('Session', 's1')
    t.equal(await oauth.findByUid('Session', 'u1'), null)
  })
}
