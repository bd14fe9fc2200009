import { test } from 'tap'
import type { OpenAPIV3 } from 'openapi-types'
import { adminHeaders, build, createWallet } from '../../helper.js'

const methods = ['get', 'post', 'put', 'patch', 'delete'] as const

test('a wrong method on every documented path is a 405 whose Allow lists the path\'s methods', async (t) => {
  const app = await build(t)
  const wallet = await createWallet(app, 1)
  const document = (await app.inject({ method: 'GET', url: '/openapi/openapi.json' })).json<OpenAPIV3.Document>()
  for (const [path, item] of Object.entries(document.paths)) {
    const documented = methods.filter((method) => item?.[method] !== undefined).map((method) => method.toUpperCase())
    const expected = [...documented, ...(documented.includes('GET') ? ['HEAD'] : [])].sort().join(', ')
    const url = path.replace('{id}', path.startsWith('/api/wallets') ? wallet.id : 'weather-sensor')
    for (const method of [...methods.map((method) => method.toUpperCase()), 'OPTIONS']) {
      if (documented.includes(method)) continue
      const response = await app.inject({ method: method as 'PUT', url, headers: adminHeaders })
      t.equal(response.statusCode, 405, `${method} ${path}`)
      t.equal(response.headers.allow, expected, `${method} ${path} Allow`)
      t.match(response.json(), { error: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED', message: String })
    }
  }
})

test('HEAD still answers GET routes, and an unknown path is still a 404', async (t) => {
  const app = await build(t)
  t.equal((await app.inject({ method: 'HEAD', url: '/api/bees' })).statusCode, 200)
  t.equal((await app.inject({ method: 'HEAD', url: '/health' })).statusCode, 200)
  const unknown = await app.inject({ method: 'DELETE', url: '/api/nothing-here?x=1' })
  t.equal(unknown.statusCode, 404)
  t.equal(unknown.headers.allow, undefined)
  t.equal(unknown.json().code, 'ROUTE_NOT_FOUND')
  const root = await app.inject({ method: 'GET', url: '/' })
  t.equal(root.statusCode, 404)
  t.match(root.json().message, /\/openapi\/openapi\.json.*\/docs.*\/llms\.txt/, 'the root points to the document, to Swagger UI and to llms.txt')
  const docs = await app.inject({ method: 'POST', url: '/docs/static/index.html' })
  t.equal(docs.statusCode, 405, 'wildcard paths count too')
  t.equal(docs.headers.allow, 'GET, HEAD')
  const query = await app.inject({ method: 'PUT', url: '/api/bees?limit=5' })
  t.equal(query.headers.allow, 'GET, HEAD, POST', 'the query string does not hide the path')
})
