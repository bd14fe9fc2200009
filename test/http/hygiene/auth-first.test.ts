import { test } from 'tap'
import type { OpenAPIV3 } from 'openapi-types'
import { build, createWallet } from '../../helper.js'

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const

/**
 * Every operation the OpenAPI document says needs credentials (no empty alternative). Execute routes are
 * left out: a wallet there pays for a call, and is judged after the input so that no one pays for input
 * the Bee would refuse (docs/payments/wallets.md).
 */
async function protectedOperations (app: Awaited<ReturnType<typeof build>>) {
  const document = (await app.inject({ method: 'GET', url: '/openapi/openapi.json' })).json<OpenAPIV3.Document>()
  const operations: Array<{ method: string, path: string, schemes: string[] }> = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const operation = item?.[method]
      const security = operation?.security ?? []
      if (operation === undefined || operation.tags?.includes('execute') === true) continue
      if (security.length === 0 || security.some((requirement) => Object.keys(requirement).length === 0)) continue
      operations.push({ method: method.toUpperCase(), path, schemes: security.flatMap((requirement) => Object.keys(requirement)) })
    }
  }
  return operations
}

test('credentials are checked before the body on every protected route', async (t) => {
  const app = await build(t, { env: { BODY_LIMIT_BYTES: '1024' } })
  const wallet = await createWallet(app, 1)
  const operations = await protectedOperations(app)
  t.ok(operations.length >= 11, `${operations.length} protected operations`)
  t.ok(operations.some((operation) => operation.path === '/api/wallet'), 'the wallet holder\'s route is among them')

  const bodies = [
    { name: 'malformed JSON', type: 'application/json', payload: '{"balance":' },
    { name: 'wrong types', type: 'application/json', payload: '{"balance":"x","amount":"x","email":7,"id":7,"name":7,"status":7}' },
    { name: 'over the body limit', type: 'application/json', payload: `{"label":"${'x'.repeat(4096)}"}` },
    { name: 'not JSON', type: 'text/csv', payload: 'a,b\n1,2' }
  ]
  const credentials = [
    { name: 'no credentials', headers: {} },
    { name: 'a wrong bearer token and wallet token', headers: { authorization: 'Bearer wrong', 'x-registry-wallet-token': 'wrong' } }
  ]
  for (const { method, path } of operations) {
    const url = path.replace('{id}', path.startsWith('/api/wallets') ? wallet.id : 'weather-sensor')
    for (const body of bodies) {
      for (const credential of credentials) {
        const response = await app.inject({ method: method as 'POST', url, headers: { ...credential.headers, 'content-type': body.type }, payload: body.payload })
        t.equal(response.statusCode, 401, `${method} ${path}, ${body.name}, ${credential.name}`)
        t.match(response.json(), { code: /^(UNAUTHORIZED|WALLET_TOKEN_MISSING|WALLET_NOT_FOUND)$/ })
      }
    }
  }
})
