import { test } from 'tap'
import { upstreamRequest, type RequestMapping } from '../../../src/core/publishing/request-mapping.js'

const mapping = (fields: Partial<RequestMapping>): RequestMapping => ({
  method: 'GET', serverUrl: 'https://api.example.com/v2', path: '/items/{id}', parameters: [], body: 'none', output: 'object', credential: null, ...fields
})

test('path parameters are percent-encoded, query arrays repeat their name, headers are text', async (t) => {
  const request = upstreamRequest(mapping({
    parameters: [{ name: 'id', in: 'path' }, { name: 'tag', in: 'query' }, { name: 'limit', in: 'query' }, { name: 'X-Ids', in: 'header' }]
  }), { id: 'a b/c?', tag: ['x', 'y z'], 'X-Ids': [1, 2] }, null)
  t.same(request, {
    url: 'https://api.example.com/v2/items/a%20b%2Fc%3F?tag=x&tag=y+z',
    method: 'GET',
    headers: { accept: 'application/json', 'x-ids': '1,2' },
    body: undefined
  }, 'an absent optional parameter is left out')
})

test('the credential goes where the security scheme says', async (t) => {
  const withKey = (credential: RequestMapping['credential']) => upstreamRequest(mapping({ credential }), {}, 'sk_1')
  t.equal(withKey({ in: 'bearer' }).headers.authorization, 'Bearer sk_1')
  t.equal(withKey({ in: 'header', name: 'X-API-Key' }).headers['x-api-key'], 'sk_1')
  t.equal(withKey({ in: 'query', name: 'api_key' }).url, 'https://api.example.com/v2/items/{id}?api_key=sk_1')
  t.same(upstreamRequest(mapping({ credential: { in: 'bearer' } }), {}, null).headers, { accept: 'application/json' }, 'none stored, none sent')
})

test('the JSON body is made of the body parameters, or is the input\'s body property whole', async (t) => {
  const merged = upstreamRequest(mapping({ method: 'POST', path: '/items', body: 'properties', parameters: [{ name: 'name', in: 'body' }, { name: 'dry', in: 'query' }] }),
    { name: 'Kit', dry: true }, null)
  t.same([merged.url, merged.body, merged.headers['content-type']], ['https://api.example.com/v2/items?dry=true', '{"name":"Kit"}', 'application/json'])
  const whole = upstreamRequest(mapping({ method: 'PUT', path: '/items', body: 'whole' }), { body: [1, 2] }, null)
  t.equal(whole.body, '[1,2]')
  t.equal(upstreamRequest(mapping({ method: 'PUT', path: '/items', body: 'whole' }), {}, null).body, undefined, 'an optional body left out is not sent')
})
