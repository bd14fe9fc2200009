import SwaggerParser from '@apidevtools/swagger-parser'
import { test } from 'tap'
import type { OpenAPIV3 } from 'openapi-types'
import { adminHeaders, build, createWallet } from '../../helper.js'

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const

test('every numeric query parameter refuses non-finite numbers with 400 VALIDATION_FAILED', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  // Parameters many operations share are $refs: dereferenced, each operation lists its own.
  const document = await SwaggerParser.dereference((await app.inject({ method: 'GET', url: '/openapi/openapi.json' })).json<OpenAPIV3.Document>()) as OpenAPIV3.Document
  const checked: string[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of methods) {
      const operation = item?.[method]
      for (const parameter of (operation?.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
        const type = (parameter.schema as OpenAPIV3.SchemaObject | undefined)?.type
        if (parameter.in !== 'query' || (type !== 'integer' && type !== 'number')) continue
        const url = path.replace('{id}', path.startsWith('/api/wallets') ? wallet.id : path.startsWith('/api/publishers') ? 'me' : 'weather-sensor')
        for (const value of ['Infinity', '-Infinity', '1e400', '-1e400']) {
          const response = await app.inject({
            method: method.toUpperCase() as 'GET',
            url: `${url}?${parameter.name}=${value}`,
            // Each route's credential, so the query is what is judged: the admin token, or the wallet's key.
            headers: { ...adminHeaders, 'x-registry-wallet-token': wallet.token }
          })
          t.equal(response.statusCode, 400, `${method} ${path}?${parameter.name}=${value}`)
          t.match(response.json(), { code: 'VALIDATION_FAILED', details: [{ field: `/${parameter.name}` }] })
        }
        checked.push(`${operation?.operationId ?? path} ${parameter.name}`)
      }
    }
  }
  t.same(checked.sort(), ['get-earnings limit', 'get-wallet-journal limit', 'list-bees limit', 'list-bees minSuccessRate', 'list-preparations limit', 'list-runs limit',
    'list-subscription-calls limit', 'list-wallet-tokens limit',
    'list-wallets limit', 'list-x402-settlements limit'],
  'the numeric query parameters known today are all covered')
})

test('finite numbers in range are still accepted, including exponent notation', async (t) => {
  const app = await build(t)
  const response = await app.inject({ method: 'GET', url: '/api/bees?limit=1e2' })
  t.equal(response.statusCode, 200)
  const tooMany = await app.inject({ method: 'GET', url: '/api/bees?limit=501' })
  t.equal(tooMany.statusCode, 400)
})
