import { test } from 'tap'
import { backends } from '../../databases.js'
import { adminHeaders, build, createWallet } from '../../helper.js'

const b64 = (text: string) => Buffer.from(text).toString('base64url')

for (const backend of backends) {
  test(`malformed ids and cursors are 4xx on ${backend.name}, never 500`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const app = await build(t, { env: { DATABASE_URL: database.url } })
    const wallet = await createWallet(app, 1)

    await t.test('a malformed wallet id is a 400 on every wallet route; a well-formed unknown one a 404', async (tt) => {
      const routes = [
        { method: 'GET' as const, suffix: '' },
        { method: 'GET' as const, suffix: '/journal' },
        { method: 'POST' as const, suffix: '/deposits', payload: { amount: 1 } },
        { method: 'POST' as const, suffix: '/freeze' },
        { method: 'POST' as const, suffix: '/unfreeze' }
      ]
      for (const { method, suffix, payload } of routes) {
        for (const id of ['a%00b', 'wal_a%00b', 'wal_a%20b', 'WAL_x']) {
          const response = await app.inject({ method, url: `/api/wallets/${id}${suffix}`, headers: adminHeaders, ...(payload === undefined ? {} : { payload }) })
          tt.equal(response.statusCode, 400, `${method} ${id}${suffix}`)
          tt.match(response.json(), { code: 'VALIDATION_FAILED', message: /^The path is invalid/, details: [{ field: '/id' }] })
        }
        const missing = await app.inject({ method, url: `/api/wallets/wal_missing${suffix}`, headers: adminHeaders, ...(payload === undefined ? {} : { payload }) })
        tt.equal(missing.statusCode, 404, `${method} wal_missing${suffix}`)
        tt.equal(missing.json().code, 'WALLET_NOT_FOUND')
      }
    })

    await t.test('a malformed Bee id is a 404 on the Bee routes, without a database error', async (tt) => {
      for (const [method, url] of [['GET', '/api/bees/a%00b'], ['PATCH', '/api/bees/a%00b'], ['DELETE', '/api/bees/a%00b'], ['POST', '/api/bees/a%00b/execute']] as const) {
        const response = await app.inject({ method, url, headers: adminHeaders, ...(method === 'GET' || method === 'DELETE' ? {} : { payload: { status: 'inactive' } }) })
        tt.equal(response.statusCode, 404, `${method} ${url}`)
        tt.equal(response.json().code, 'BEE_NOT_FOUND')
      }
    })

    await t.test('wallet list cursors are decoded strictly', async (tt) => {
      for (const cursor of ['garbage!!', 'YQBi', b64('not-a-wallet'), b64('wal_x') + '!', b64('wal_x') + '=', '%00', b64(''), '____']) {
        const response = await app.inject({ url: `/api/wallets?cursor=${cursor}`, headers: adminHeaders })
        tt.equal(response.statusCode, 400, cursor)
        tt.same(response.json(), { error: 'Bad Request', code: 'INVALID_CURSOR', message: 'cursor must be the nextCursor of a previous page.' })
      }
      await createWallet(app, 0)
      await createWallet(app, 0)
      const seen: string[] = []
      let cursor: string | null = null
      do {
        const query: string = cursor === null ? '' : `&cursor=${cursor}`
        const response = await app.inject({ url: `/api/wallets?limit=1${query}`, headers: adminHeaders })
        tt.equal(response.statusCode, 200)
        const page = response.json<{ wallets: Array<{ id: string }>, nextCursor: string | null }>()
        seen.push(...page.wallets.map((item) => item.id))
        cursor = page.nextCursor
      } while (cursor !== null)
      tt.equal(seen.length, 3, 'real cursors still page through every wallet')
      tt.same(seen, [...seen].sort())
    })

    await t.test('journal cursors are decoded strictly', async (tt) => {
      for (const cursor of ['LTE', 'MA', 'garbage!!', b64('1.5'), b64('1e3'), b64('01'), b64('99999999999999999'), 'YQBi']) {
        const response = await app.inject({ url: `/api/wallets/${wallet.id}/journal?cursor=${cursor}`, headers: adminHeaders })
        tt.equal(response.statusCode, 400, cursor)
        tt.equal(response.json().code, 'INVALID_CURSOR')
      }
      await app.inject({ method: 'POST', url: `/api/wallets/${wallet.id}/deposits`, headers: adminHeaders, payload: { amount: 1 } })
      const first = (await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=1`, headers: adminHeaders })).json()
      tt.type(first.nextCursor, 'string')
      const second = await app.inject({ url: `/api/wallets/${wallet.id}/journal?limit=1&cursor=${first.nextCursor as string}`, headers: adminHeaders })
      tt.equal(second.statusCode, 200)
      tt.equal(second.json().entries.length, 1)
      tt.equal(second.json().nextCursor, null)
    })
  })
}

test('discovery cursors are decoded strictly too', async (t) => {
  const app = await build(t)
  for (const cursor of ['garbage!!', `${b64('text-summarizer')}!!`, b64('Text'), 'YQBi']) {
    const response = await app.inject(`/api/bees?cursor=${cursor}`)
    t.equal(response.statusCode, 400, cursor)
    t.equal(response.json().code, 'INVALID_CURSOR')
  }
  const first = (await app.inject('/api/bees?limit=1')).json()
  const next = await app.inject(`/api/bees?limit=1&cursor=${first.nextCursor as string}`)
  t.equal(next.statusCode, 200)
  t.not(next.json().bees[0].id, first.bees[0].id)
})
