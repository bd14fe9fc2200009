import { test } from 'tap'
import { build } from '../helper.js'

test('only the routes that ask for it are compressed: discovery, detail and execute answers go as they are', async (t) => {
  const app = await build(t)
  const headers = { 'accept-encoding': 'br, gzip' }
  for (const request of [
    { url: '/api/bees' },
    { url: '/api/bees/text-summarizer' },
    { method: 'POST' as const, url: '/api/bees/text-summarizer/execute', payload: { text: 'One sentence. Another one.' } }
  ]) {
    const response = await app.inject({ ...request, headers })
    t.equal(response.statusCode, 200, request.url)
    t.equal(response.headers['content-encoding'], undefined, `${request.url} is not compressed`)
  }
  t.equal((await app.inject({ url: '/openapi/openapi.json', headers })).headers['content-encoding'], 'br', 'the OpenAPI document is')
})
