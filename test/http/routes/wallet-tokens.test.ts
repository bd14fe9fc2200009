import { setTimeout as sleep } from 'node:timers/promises'
import { decodeJwt, decodeProtectedHeader } from 'jose'
import { test } from 'tap'
import { backends } from '../../databases.js'
import { balanceOf, build, createWallet, execute } from '../../helper.js'
import { mint, minted, tokensOf } from '../../tokens-helper.js'

const SENTIMENT = 'sentiment-analyzer'
const TEXT = { text: 'A budget for an agent.' }
const PRICE = 0.001

for (const backend of backends) {
  test(`verification tokens on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    // Weather's upstream is nowhere (port 9): each weather call fails, and its hold is voided.
    const app = await build(t, { env: { DATABASE_URL: database.url } })

    await t.test('a wallet key mints a signed token that pays where the wallet key does', async (tt) => {
      const wallet = await createWallet(app, 1)
      const answer = await mint(app, wallet.token, { cap: 0.5, label: 'agent' })
      tt.equal(answer.statusCode, 201)
      const token = answer.json()
      tt.match(token, { id: /^tok_[0-9a-f]{24}$/, parentId: null, cap: 0.5, spent: 0, remaining: 0.5, perCallCap: null, currency: 'USD', bees: null, label: 'agent', revokedAt: null })
      tt.match(decodeProtectedHeader(token.token), { alg: 'EdDSA', kid: /./, typ: 'JWT' })
      tt.match(decodeJwt(token.token), { iss: 'apiary', sub: wallet.id, jti: token.id, cap: 0.5, currency: 'USD' })
      tt.equal(Date.parse(token.expiresAt) - Date.now() > 23 * 3600 * 1000, true, 'a day by default')

      const paid = await execute(app, SENTIMENT, TEXT, token.token)
      tt.equal(paid.statusCode, 200)
      tt.equal(paid.headers['x-registry-cost'], String(PRICE))
      tt.equal(await balanceOf(app, wallet.id), 1 - PRICE, 'the wallet paid')
      tt.match((await tokensOf(app, wallet.token)).get(token.id), { spent: PRICE, remaining: 0.5 - PRICE })
      const free = await execute(app, 'text-summarizer', { text: 'One. Two. Three.' }, token.token)
      tt.equal(free.statusCode, 200, 'a free Bee costs the token nothing')
    })

    await t.test('a child only narrows its parent, and its spend counts against every ancestor', async (tt) => {
      const wallet = await createWallet(app, 1)
      const parent = await minted(app, wallet.token, { cap: 0.01, perCallCap: 0.005, expiresInSeconds: 3600, categories: ['utility', 'data'] })
      const refusals: Array<[Record<string, unknown>, RegExp]> = [
        [{ cap: 0.02 }, /cap 0.02 is more than the 0.01 its parent has left/],
        [{ cap: 0.001, expiresInSeconds: 7200 }, /expire after its parent/],
        [{ cap: 0.001, perCallCap: 0.006 }, /perCallCap 0.006 is more than its parent's 0.005/],
        [{ cap: 0.001, bees: ['text-summarizer'] }, /may not pay for text-summarizer/],
        [{ cap: 0.001, categories: ['reasoning'] }, /category reasoning/]
      ]
      for (const [body, message] of refusals) {
        const refused = await mint(app, parent.token, body)
        tt.equal(refused.statusCode, 403, JSON.stringify(body))
        tt.match(refused.json(), { code: 'TOKEN_NARROWING_REQUIRED', message })
      }
      const child = await minted(app, parent.token, { cap: 0.002, bees: [SENTIMENT] })
      tt.match(child, { parentId: parent.id, perCallCap: 0.005, bees: [SENTIMENT], categories: null })
      const grandchild = await minted(app, child.token, { cap: 0.001 })
      tt.match(grandchild, { parentId: child.id, bees: [SENTIMENT], perCallCap: 0.005 }, 'inherits the scope when it names none')

      tt.equal((await execute(app, SENTIMENT, TEXT, grandchild.token)).statusCode, 200)
      const tokens = await tokensOf(app, wallet.token)
      for (const id of [parent.id, child.id, grandchild.id]) tt.equal(tokens.get(id)?.spent, PRICE, `${id} counted the grandchild's call`)
      const over = await execute(app, SENTIMENT, TEXT, grandchild.token)
      tt.equal(over.statusCode, 402)
      tt.match(over.json(), { code: 'TOKEN_CAP_EXCEEDED', message: /has 0 USD of its cap left/, transactionDetails: { beeId: SENTIMENT } })
      tt.equal((await execute(app, SENTIMENT, TEXT, child.token)).statusCode, 200, 'the child still has room')
      const seen = await tokensOf(app, child.token)
      tt.same([...seen.keys()].sort(), [child.id, grandchild.id].sort(), 'a token lists itself and its descendants')
      tt.equal(await balanceOf(app, wallet.id), 1 - 2 * PRICE)
    })

    await t.test('the allow-list admits Bees by id and by category; caps per call', async (tt) => {
      const wallet = await createWallet(app, 1)
      const byId = await minted(app, wallet.token, { cap: 1, bees: ['weather-sensor'] })
      const denied = await execute(app, SENTIMENT, TEXT, byId.token)
      tt.equal(denied.statusCode, 403)
      tt.match(denied.json(), { error: 'Forbidden', code: 'TOKEN_SCOPE_DENIED', message: /may not pay for sentiment-analyzer/ })
      const byCategory = await minted(app, wallet.token, { cap: 1, categories: ['utility'] })
      tt.equal((await execute(app, SENTIMENT, TEXT, byCategory.token)).statusCode, 200)
      const perCall = await minted(app, wallet.token, { cap: 1, perCallCap: 0.0005 })
      const expensive = await execute(app, SENTIMENT, TEXT, perCall.token)
      tt.equal(expensive.statusCode, 402)
      tt.equal(expensive.json().code, 'TOKEN_PER_CALL_CAP_EXCEEDED')
      tt.equal(await balanceOf(app, wallet.id), 1 - PRICE, 'only the admitted call paid')
      tt.equal((await tokensOf(app, wallet.token)).get(byId.id)?.spent, 0, 'a refused call spends nothing')
    })

    await t.test('revoking a token revokes its descendants at once', async (tt) => {
      const wallet = await createWallet(app, 1)
      const parent = await minted(app, wallet.token, { cap: 0.1 })
      const child = await minted(app, parent.token, { cap: 0.05 })
      const sibling = await minted(app, wallet.token, { cap: 0.1 })
      const notYours = await app.inject({ method: 'DELETE', url: `/api/wallet/tokens/${parent.id}`, headers: { 'x-registry-wallet-token': child.token } })
      tt.equal(notYours.statusCode, 404, 'a child cannot revoke its parent')
      const other = await createWallet(app, 1)
      tt.equal((await app.inject({ method: 'DELETE', url: `/api/wallet/tokens/${parent.id}`, headers: { 'x-registry-wallet-token': other.token } })).statusCode, 404)

      const revoked = await app.inject({ method: 'DELETE', url: `/api/wallet/tokens/${parent.id}`, headers: { 'x-registry-wallet-token': wallet.token } })
      tt.equal(revoked.statusCode, 200)
      tt.same(revoked.json(), { id: parent.id, revoked: 2 })
      const refused = await execute(app, SENTIMENT, TEXT, child.token)
      tt.equal(refused.statusCode, 402)
      tt.match(refused.json(), { code: 'TOKEN_REVOKED', message: /revoked/ })
      tt.equal((await mint(app, child.token, { cap: 0.01 })).json().code, 'TOKEN_REVOKED', 'a revoked token mints nothing')
      tt.equal((await execute(app, SENTIMENT, TEXT, sibling.token)).statusCode, 200, 'its sibling still pays')
      const tokens = await tokensOf(app, wallet.token)
      tt.ok(tokens.get(child.id)?.revokedAt !== null && tokens.get(parent.id)?.revokedAt !== null)
      tt.equal(tokens.get(sibling.id)?.revokedAt, null)
    })

    await t.test('an expired token pays nothing', async (tt) => {
      const wallet = await createWallet(app, 1)
      const brief = await minted(app, wallet.token, { cap: 1, expiresInSeconds: 1 })
      await sleep(2100)
      const refused = await execute(app, SENTIMENT, TEXT, brief.token)
      tt.equal(refused.statusCode, 402)
      tt.match(refused.json(), { code: 'TOKEN_EXPIRED', message: /expired/ })
      tt.equal((await tokensOf(app, wallet.token)).get(brief.id)?.spent, 0)
    })

    await t.test('a forged or altered token is refused, on payment and on the token routes', async (tt) => {
      const wallet = await createWallet(app, 1)
      const token = await minted(app, wallet.token, { cap: 1 })
      const [header, payload, signature] = token.token.split('.') as [string, string, string]
      const raised = Buffer.from(JSON.stringify({ ...decodeJwt(token.token), cap: 1000 })).toString('base64url')
      for (const forged of [`${header}.${raised}.${signature}`, `${header}.${payload}.${signature.slice(0, -4)}AAAA`]) {
        const refused = await execute(app, SENTIMENT, TEXT, forged)
        tt.equal(refused.statusCode, 402)
        tt.equal(refused.json().code, 'TOKEN_INVALID')
        const listing = await app.inject({ url: '/api/wallet/tokens', headers: { 'x-registry-wallet-token': forged } })
        tt.equal(listing.statusCode, 401)
        tt.equal(listing.json().code, 'TOKEN_INVALID')
      }
      tt.equal(await balanceOf(app, wallet.id), 1)
      tt.equal((await mint(app, 'awt_nope', { cap: 1 })).json().code, 'WALLET_NOT_FOUND')
      tt.equal((await app.inject({ url: '/api/wallet/tokens' })).json().code, 'WALLET_TOKEN_MISSING')
    })

    await t.test('N concurrent calls on a token capped at K calls give exactly K successes', async (tt) => {
      const wallet = await createWallet(app, 1)
      const k = 7
      const token = await minted(app, wallet.token, { cap: k * PRICE })
      const child = await minted(app, token.token, { cap: k * PRICE })
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => execute(app, SENTIMENT, TEXT, i % 2 === 0 ? token.token : child.token)))
      const statuses = answers.map((answer) => answer.statusCode)
      tt.equal(statuses.filter((status) => status === 200).length, k)
      tt.ok(answers.every((answer) => answer.statusCode === 200 || answer.json().code === 'TOKEN_CAP_EXCEEDED'))
      tt.equal(await balanceOf(app, wallet.id), Number((1 - k * PRICE).toFixed(6)), 'the wallet paid exactly K times')
      tt.equal((await tokensOf(app, wallet.token)).get(token.id)?.remaining, 0)
      const audit = await app.ledger.journal.audit(wallet.id)
      tt.equal(audit?.journalMicros, audit?.balanceMicros, 'the journal agrees')
    })

    await t.test('holds and voids racing on one lineage never deadlock, and leave the books exact', async (tt) => {
      const wallet = await createWallet(app, 1)
      const parent = await minted(app, wallet.token, { cap: 0.5 })
      const children = await Promise.all([1, 2].map(async () => await minted(app, parent.token, { cap: 0.2 })))
      const credentials = [parent.token, ...children.map((child) => child.token)]
      // Weather fails (its upstream is nowhere) and is voided; sentiment succeeds and is captured.
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => i % 2 === 0
        ? execute(app, 'weather-sensor', { latitude: 10, longitude: i }, credentials[i % 3])
        : execute(app, SENTIMENT, TEXT, credentials[i % 3])))
      tt.same(answers.filter((answer) => answer.statusCode === 500 || answer.statusCode === 503), [], 'no deadlock, no lost hold')
      const sold = answers.filter((answer) => answer.statusCode === 200).length
      tt.equal(sold, 20)
      const tokens = await tokensOf(app, wallet.token)
      tt.equal(tokens.get(parent.id)?.spent, Number((sold * PRICE).toFixed(6)), 'the parent kept exactly the captured spend')
      tt.equal(await balanceOf(app, wallet.id), Number((1 - sold * PRICE).toFixed(6)))
    })

    await t.test('an Idempotency-Key with a token: a retry is replayed and charged once', async (tt) => {
      const wallet = await createWallet(app, 1)
      const token = await minted(app, wallet.token, { cap: 1 })
      const call = () => execute(app, SENTIMENT, TEXT, token.token, { 'idempotency-key': 'token-retry-1' })
      tt.equal((await call()).statusCode, 200)
      const retry = await call()
      tt.equal(retry.headers['idempotent-replayed'], 'true')
      tt.equal((await tokensOf(app, wallet.token)).get(token.id)?.spent, PRICE)
      tt.equal(await balanceOf(app, wallet.id), 1 - PRICE)
      const free = () => execute(app, 'text-summarizer', { text: 'One. Two. Three.' }, token.token, { 'idempotency-key': 'token-free-1' })
      tt.equal((await free()).statusCode, 200, 'a free Bee stores its answer under a token as under a wallet key')
      tt.equal((await free()).headers['idempotent-replayed'], 'true')
      const forged = await execute(app, 'text-summarizer', { text: 'One.' }, `${token.token.slice(0, -4)}AAAA`, { 'idempotency-key': 'token-free-2' })
      tt.equal(forged.json().code, 'IDEMPOTENCY_WALLET_REQUIRED', 'a forged token stores nothing')
    })

    await t.test('a failed call gives its spend back to the token and its ancestors; so does the sweeper', async (tt) => {
      const wallet = await createWallet(app, 1)
      const parent = await minted(app, wallet.token, { cap: 0.01 })
      const child = await minted(app, parent.token, { cap: 0.01 })
      const failed = await execute(app, 'weather-sensor', { latitude: 10, longitude: 10 }, child.token)
      tt.ok(failed.statusCode >= 500, 'the upstream is unreachable')
      let tokens = await tokensOf(app, wallet.token)
      tt.equal(tokens.get(parent.id)?.spent, 0)
      tt.equal(tokens.get(child.id)?.spent, 0)
      tt.equal(await balanceOf(app, wallet.id), 1)

      const held = await app.ledger.holds.place({
        tokenHash: '', token: { id: child.id, category: 'utility' }, micros: 4000, currency: 'USD', beeId: SENTIMENT, requestId: 'abandoned', claim: null, expiresInSeconds: 0
      })
      tt.ok(held.ok)
      tokens = await tokensOf(app, wallet.token)
      tt.equal(tokens.get(parent.id)?.spent, 0.004, 'a pending hold counts')
      tt.equal(await app.ledger.holds.voidExpired(100), 1)
      tokens = await tokensOf(app, wallet.token)
      tt.equal(tokens.get(parent.id)?.spent, 0, 'the sweeper gave it back')
      tt.equal(tokens.get(child.id)?.spent, 0)
      tt.equal(await balanceOf(app, wallet.id), 1)
    })

    await t.test('the wallet still has the last word: a token cannot spend money the wallet lacks', async (tt) => {
      const wallet = await createWallet(app, 0.0015)
      const token = await minted(app, wallet.token, { cap: 1 })
      tt.equal((await execute(app, SENTIMENT, TEXT, token.token)).statusCode, 200)
      const poor = await execute(app, SENTIMENT, TEXT, token.token)
      tt.equal(poor.statusCode, 402)
      tt.equal(poor.json().code, 'INSUFFICIENT_FUNDS')
      tt.equal((await tokensOf(app, wallet.token)).get(token.id)?.spent, PRICE, 'the refused hold rolled the token back too')
    })
  })
}
