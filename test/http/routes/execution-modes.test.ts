import { test } from 'tap'
import { backends } from '../../databases.js'
import { beeBody, publishingSetup } from '../../publishing-helper.js'

const events = { type: 'object', properties: { line: { type: 'string' } }, required: ['line'] }

for (const backend of backends) {
  test(`execution modes in the catalog on ${backend.name}`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const { app, fake, publisher } = await publishingSetup(t, { DATABASE_URL: database.url, RUN_MAX_SECONDS: '600' })
    const publish = async (id: string, config: Record<string, unknown>, extra: Record<string, unknown> = {}) => await app.inject({
      method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody(id, fake.url, { config: { primaryServices: ['shouting'], ...config }, ...extra })
    })
    const detail = async (id: string) => (await app.inject({ url: `/api/bees/${id}` })).json<{ config: Record<string, unknown> }>().config

    await t.test('a Bee is sync unless it says otherwise, and the built-in Bees are sync', async (t) => {
      t.equal((await publish('plain', { primaryServices: ['shouting'] })).statusCode, 201)
      t.same(await detail('plain'), { primaryServices: ['shouting'], executionProvider: new URL(fake.url).host, executionMode: 'sync' })
      const listed = (await app.inject({ url: '/api/bees?limit=100' })).json<{ bees: Array<{ type: string, config: { executionMode: string } }> }>()
      t.ok(listed.bees.filter((bee) => bee.type === 'builtin').every((bee) => bee.config.executionMode === 'sync'))
    })

    await t.test('async and stream Bees show their limit and event schema in discovery', async (t) => {
      const slow = await publish('slow-one', { executionMode: 'async', maxRunSeconds: 120 })
      t.equal(slow.statusCode, 201, slow.body)
      t.match(slow.json(), { config: { executionMode: 'async', maxRunSeconds: 120 } })
      t.match(await detail('slow-one'), { executionMode: 'async', maxRunSeconds: 120 })
      t.equal((await publish('ticker', { executionMode: 'stream', eventSchema: events })).statusCode, 201)
      t.match(await detail('ticker'), { executionMode: 'stream', eventSchema: { type: 'object', required: ['line'] } })
      const listed = (await app.inject({ url: '/api/bees?colony=loud&limit=100' })).json<{ bees: Array<{ id: string, config: { executionMode: string } }> }>()
      t.match(listed.bees.find((bee) => bee.id === 'slow-one'), { config: { executionMode: 'async', maxRunSeconds: 120 } })
    })

    await t.test('an async Bee\'s own OpenAPI document has the run\'s 202 and Prefer; a sync Bee\'s has neither', async (t) => {
      interface Operation { parameters: Array<{ name: string }>, responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }
      const operationOf = async (id: string) => {
        const document = (await app.inject({ url: `/api/bees/${id}/openapi.json` })).json<{ paths: Record<string, { post: Operation }>, components: { schemas: object } }>()
        return { operation: document.paths[`/api/bees/${id}/execute`]?.post as Operation, schemas: document.components.schemas }
      }
      const slow = await operationOf('slow-one')
      t.ok(slow.operation.parameters.some((parameter) => parameter.name === 'prefer'))
      t.match(slow.operation.responses['202']?.content?.['application/json']?.schema, { $ref: '#/components/schemas/Run' })
      t.ok('Run' in slow.schemas, 'the run\'s schema comes with it')
      const plain = await operationOf('plain')
      t.notOk(plain.operation.parameters.some((parameter) => parameter.name === 'prefer'))
      t.equal(plain.operation.responses['202'], undefined)
    })

    await t.test('a change keeps the mode it does not name, and can make a Bee sync again', async (t) => {
      const renamed = await app.inject({ method: 'PATCH', url: '/api/bees/slow-one', headers: publisher.headers, payload: { name: 'Slow' } })
      t.match(renamed.json(), { name: 'Slow', config: { executionMode: 'async', maxRunSeconds: 120 } })
      const longer = await app.inject({ method: 'PATCH', url: '/api/bees/slow-one', headers: publisher.headers, payload: { config: { maxRunSeconds: 300 } } })
      t.match(longer.json(), { config: { executionMode: 'async', maxRunSeconds: 300, primaryServices: ['shouting'] } })
      const sync = await app.inject({ method: 'PATCH', url: '/api/bees/slow-one', headers: publisher.headers, payload: { config: { executionMode: 'sync' } } })
      t.same((sync.json<{ config: Record<string, unknown> }>()).config, { primaryServices: ['shouting'], executionProvider: new URL(fake.url).host, executionMode: 'sync' })
    })

    await t.test('an execution a Bee cannot have is refused with INVALID_EXECUTION', async (t) => {
      const refusals: Array<[Record<string, unknown>, string, Record<string, unknown>?]> = [
        [{ executionMode: 'stream' }, 'A stream Bee needs an eventSchema: the JSON Schema of each event it sends.'],
        [{ executionMode: 'async', eventSchema: events }, 'eventSchema is for stream Bees; an async Bee answers once, with its outputSchema.'],
        [{ eventSchema: events }, 'eventSchema is for stream Bees.'],
        [{ maxRunSeconds: 30 }, 'maxRunSeconds is for async and stream Bees; a sync Bee answers within REMOTE_BEE_TIMEOUT_MS.'],
        [{ executionMode: 'async', maxRunSeconds: 601 }, 'maxRunSeconds is at most 600 on this service (RUN_MAX_SECONDS).'],
        [{ executionMode: 'async' }, 'An async Bee is free or pay-per-use; subscription pricing is for sync Bees for now.',
          { pricing: { type: 'subscription', plan: { periodPrice: 5, periodDays: 30, includedCalls: 10, overagePrice: null } } }]
      ]
      for (const [config, message, extra] of refusals) {
        const refused = await publish('refused', config, extra)
        t.equal(refused.statusCode, 400, JSON.stringify(config))
        t.same(refused.json(), { error: 'Bad Request', code: 'INVALID_EXECUTION', message })
      }
      t.equal((await app.inject({ url: '/api/bees/refused' })).statusCode, 404, 'nothing refused was stored')
      const mode = await publish('bad-mode', { executionMode: 'batch' })
      t.equal(mode.statusCode, 400)
      t.equal(mode.json<{ code: string }>().code, 'VALIDATION_FAILED')
    })
  })
}
