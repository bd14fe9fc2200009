import { Ajv } from 'ajv'
import { test } from 'tap'
import { Type } from 'typebox'
import { build } from '../../helper.js'

const article = [
  'The city council approved a new budget for public transport on Tuesday.',
  'The plan adds two tram lines and doubles the number of night buses.',
  'Council members said the changes respond to complaints about crowded trains.',
  'Opponents argued that the budget ignores cyclists and pedestrians.',
  'Construction of the first tram line is expected to begin next spring.'
].join(' ')

test('the summarizer answers Honey whose result conforms to its outputSchema', async (t) => {
  const app = await build(t)
  const bee = (await app.inject('/api/bees/text-summarizer')).json()
  const before = Date.now()
  const response = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: article, maxLength: 30 } })
  t.equal(response.statusCode, 200)
  const honey = response.json()
  t.same(Object.keys(honey).sort(), ['beeId', 'confidence', 'freshness', 'result', 'timestamp'])
  t.equal(honey.beeId, 'text-summarizer')
  t.ok(Date.parse(honey.timestamp) >= before - 1000, 'timestamp is the completion time')
  t.ok(honey.confidence >= 0 && honey.confidence <= 1)
  t.equal(honey.freshness, 0)
  t.ok(new Ajv().validate(bee.outputSchema, honey.result), 'result matches the outputSchema')
  t.ok(honey.result.summary.split(/\s+/).length <= 30, 'at most maxLength words')
  t.ok(article.includes(honey.result.keyPoints[0]), 'key points come from the text')
})

test('maxLength defaults to 150 words', async (t) => {
  const app = await build(t)
  const long = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7} and its many consequences for the region.`).join(' ')
  const honey = (await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: long } })).json()
  const words = honey.result.summary.split(/\s+/).length
  t.ok(words <= 150 && words > 100, `summary has ${words} words, within the default budget of 150`)
})

test('additional properties in the body are accepted', async (t) => {
  const app = await build(t)
  const response = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: article, agent: 'x', trace: { a: 1 } } })
  t.equal(response.statusCode, 200)
})

const invalidBodies: Array<[string, string, unknown, string]> = [
  ['a number for text', 'text-summarizer', { text: 123 }, '/text'],
  ['a missing text', 'text-summarizer', { maxLength: 10 }, '/text'],
  ['an empty text', 'text-summarizer', { text: '' }, '/text'],
  ['a blank text', 'text-summarizer', { text: '   \n ' }, '/text'],
  ['maxLength 0', 'text-summarizer', { text: 'Hello there.', maxLength: 0 }, '/maxLength'],
  ['a fractional maxLength', 'text-summarizer', { text: 'Hello there.', maxLength: 2.5 }, '/maxLength'],
  ['maxLength as a string', 'text-summarizer', { text: 'Hello there.', maxLength: '5' }, '/maxLength'],
  ['a text over the documented bound', 'sentiment-analyzer', { text: 'a'.repeat(20001) }, '/text'],
  ['a latitude of "north"', 'weather-sensor', { latitude: 'north', longitude: 2 }, '/latitude'],
  ['a latitude over 90', 'weather-sensor', { latitude: 90.5, longitude: 2 }, '/latitude'],
  ['a longitude under -180', 'weather-sensor', { latitude: 0, longitude: -181 }, '/longitude'],
  ['a missing longitude', 'weather-sensor', { latitude: 0 }, '/longitude'],
  ['an array body', 'text-summarizer', ['text'], '']
]

for (const [what, id, body, field] of invalidBodies) {
  test(`${what} is a 400 naming the field`, async (t) => {
    const app = await build(t)
    const response = await app.inject({ method: 'POST', url: `/api/bees/${id}/execute`, payload: body as object })
    t.equal(response.statusCode, 400)
    const error = response.json()
    t.match(error, { error: 'Bad Request', code: 'VALIDATION_FAILED', message: String, details: Array })
    t.ok(error.details.some((issue: { field: string }) => issue.field === field), `details name ${field || 'the body'}`)
  })
}

test('a body that is missing, empty, malformed or not JSON gets a 4xx JSON error', async (t) => {
  const app = await build(t)
  const url = '/api/bees/text-summarizer/execute'
  const cases = [
    { name: 'no body at all', request: {}, status: 400, code: 'BODY_REQUIRED' },
    { name: 'an empty JSON body', request: { headers: { 'content-type': 'application/json' }, payload: '' }, status: 400, code: 'BODY_REQUIRED' },
    { name: 'malformed JSON', request: { headers: { 'content-type': 'application/json' }, payload: '{"text": ' }, status: 400, code: 'INVALID_JSON' },
    { name: 'JSON null', request: { headers: { 'content-type': 'application/json' }, payload: 'null' }, status: 400, code: 'VALIDATION_FAILED' },
    { name: 'text/plain', request: { headers: { 'content-type': 'text/plain' }, payload: 'summarize this' }, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'a form', request: { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'text=hi' }, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }
  ]
  for (const { name, request, status, code } of cases) {
    const response = await app.inject({ method: 'POST', url, ...request })
    t.equal(response.statusCode, status, name)
    t.match(response.json(), { error: String, code, message: String }, name)
  }
})

test('a body over the size limit is a 413 in the same JSON shape', async (t) => {
  const app = await build(t, { env: { BODY_LIMIT_BYTES: '2048' } })
  const response = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: 'word '.repeat(1000) } })
  t.equal(response.statusCode, 413)
  t.match(response.json(), { error: 'Payload Too Large', code: 'PAYLOAD_TOO_LARGE', message: String })
})

test('executing an unknown Bee is a 404, whatever the body', async (t) => {
  const app = await build(t)
  for (const payload of [{ text: 'hi' }, { nonsense: true }]) {
    const response = await app.inject({ method: 'POST', url: '/api/bees/no-such-bee/execute', payload })
    t.equal(response.statusCode, 404)
    t.match(response.json(), { error: 'Not Found', code: 'BEE_NOT_FOUND', message: String })
  }
})

test('a Bee added to the registry at runtime runs through the same pipeline', async (t) => {
  const app = await build(t)
  app.registry.register({
    id: 'echo-length',
    name: 'Echo length',
    description: 'Counts characters.',
    category: 'utility',
    colony: 'test',
    type: 'builtin',
    ownerId: null,
    pricing: { type: 'free', costPerCall: 0, currency: 'USD' },
    config: { primaryServices: ['count'], executionMode: 'sync', executionProvider: 'test' },
    inputSchema: Type.Object({ word: Type.String({ minLength: 1 }) }),
    outputSchema: Type.Object({ length: Type.Integer() }),
    async execute ({ word }) {
      if (word === 'boom') throw new Error('database password is hunter2')
      if (word === 'wrong') return { result: { length: 'many' } as never, confidence: 1, freshness: 0 }
      return { result: { length: word.length }, confidence: 1, freshness: 0 }
    }
  })
  t.equal((await app.inject('/api/bees')).json().bees.length, 4, 'it is discoverable at once')

  const ok = await app.inject({ method: 'POST', url: '/api/bees/echo-length/execute', payload: { word: 'bees' } })
  t.equal(ok.statusCode, 200)
  t.same(ok.json().result, { length: 4 })

  const invalid = await app.inject({ method: 'POST', url: '/api/bees/echo-length/execute', payload: { word: 7 } })
  t.equal(invalid.statusCode, 400, 'input is validated strictly against its schema')
  t.match(invalid.json(), { code: 'VALIDATION_FAILED', details: [{ field: '/word' }] })

  const failed = await app.inject({ method: 'POST', url: '/api/bees/echo-length/execute', payload: { word: 'boom' } })
  t.equal(failed.statusCode, 500)
  t.match(failed.json(), { error: 'Internal Server Error', code: 'INTERNAL_ERROR', message: /request id/ })
  t.notMatch(failed.body, /hunter2|at .*\.ts|stack/, 'no internals in the body')

  const broken = await app.inject({ method: 'POST', url: '/api/bees/echo-length/execute', payload: { word: 'wrong' } })
  t.equal(broken.statusCode, 500, 'output that breaks the outputSchema is never served')
  t.equal(broken.json().code, 'BEE_OUTPUT_INVALID')
})
