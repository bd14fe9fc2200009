import type { FastifyInstance } from 'fastify'
import { test } from 'tap'
import type { StoredBee } from '../../../src/core/ledger/catalog/catalog-repository.js'
import { checkPatterns } from '../../../src/core/publishing/pattern-safety.js'
import { startFakeBee } from '../../fake-bee.js'
import { backends } from '../../databases.js'
import { build } from '../../helper.js'
import { beeBody, createPublisher, publish, shoutInput, shoutOutput } from '../../publishing-helper.js'

const allow = { EGRESS_ALLOWLIST: '127.0.0.1' }

/** Accepted by the old publish-time check, refused by the Ajv that loads it (useDefaults + strict). */
const defaultInAnyOf = { type: 'object', anyOf: [{ properties: { a: { type: 'string', default: 'x' } } }] }

async function setup (t: Parameters<typeof build>[0], logLines?: string[]) {
  const fake = await startFakeBee()
  t.teardown(fake.close)
  const app = await build(t, { env: allow, ...(logLines === undefined ? {} : { logLines }) })
  const publisher = await createPublisher(app)
  const attempt = (extra: Record<string, unknown>, id = 'candidate') =>
    app.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody(id, fake.url, extra) })
  return { app, fake, publisher, attempt }
}

/** A Bee written straight to the database, as an older version of Apiary may have stored it. */
function storedBee (id: string, owner: { id: string, email: string }, extra: Partial<StoredBee> = {}): StoredBee {
  const now = new Date().toISOString()
  return {
    id,
    ownerId: owner.id,
    ownerEmail: owner.email,
    name: id,
    description: 'Stored by an older version.',
    category: 'utility',
    colony: 'community',
    endpoint: 'https://bees.example.com/x',
    inputSchema: shoutInput,
    outputSchema: shoutOutput,
    primaryServices: [],
    pricing: { type: 'free', costMicros: 0, currency: 'USD' },
    status: 'active',
    statusMessage: null,
    sunsetAt: null,
    callsPerMinute: null,
    signingSecret: 'bsk_legacy',
    version: 1,
    semver: '1.0.0',
    createdAt: now,
    updatedAt: now,
    ...extra
  }
}

const skipWarnings = (lines: string[], id: string) =>
  lines.filter((line) => line.includes('published Bee skipped') && line.includes(`"beeId":"${id}"`)).length

test('a schema the loading Ajv refuses is refused at publish, and the catalog goes on', async (t) => {
  const { app, publisher, attempt } = await setup(t)
  const refused = await attempt({ inputSchema: defaultInAnyOf })
  t.equal(refused.statusCode, 400)
  t.match(refused.json(), { code: 'INVALID_SCHEMA', message: /inputSchema is not a valid JSON Schema: .*default is ignored/ })
  t.equal((await app.inject('/api/bees/candidate')).statusCode, 404, 'nothing was stored')

  t.equal((await attempt({}, 'next-one')).statusCode, 201, 'publishing still works afterwards')
  const patched = await app.inject({ method: 'PATCH', url: '/api/bees/next-one', headers: publisher.headers, payload: { inputSchema: defaultInAnyOf } })
  t.equal(patched.statusCode, 400, 'and a change cannot bring it in either')
  t.equal(patched.json().code, 'INVALID_SCHEMA')
  t.equal((await app.inject('/api/bees')).statusCode, 200)
})

test('a stored Bee that cannot be loaded is skipped with one warning; the others and the sync go on', async (t) => {
  const lines: string[] = []
  const { app, publisher, attempt } = await setup(t, lines)
  const store = app.ledger.catalog
  await store.insertBee(storedBee('legacy-defaults', publisher, { inputSchema: defaultInAnyOf }))
  await store.insertBee(storedBee('legacy-redos', publisher, {
    inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } }
  }))
  await store.insertBee(storedBee('legacy-fine', publisher))
  await t.resolves(app.catalog.refresh(), 'the sync does not fail')

  t.equal((await app.inject('/api/bees/legacy-fine')).statusCode, 200, 'the other Bees load')
  t.equal((await app.inject('/api/bees/legacy-defaults')).statusCode, 404, 'the unloadable one is left out')
  t.equal((await app.inject('/api/bees/legacy-redos')).statusCode, 404, 'so is one whose pattern is open to ReDoS')
  t.equal((await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: { text: 'Hi there.' } })).statusCode, 200)

  t.equal((await attempt({}, 'published-later')).statusCode, 201, 'publishing still works')
  await app.catalog.refresh()
  t.equal(skipWarnings(lines, 'legacy-defaults'), 1, 'warned once, not at every sync')
  t.equal(skipWarnings(lines, 'legacy-redos'), 1)

  const statusOnly = await app.inject({
    method: 'PATCH', url: '/api/bees/legacy-defaults', headers: publisher.headers, payload: { status: 'inactive' }
  })
  t.equal(statusOnly.statusCode, 400, 'a change that keeps the unloadable schema is refused, not a 500')
  t.match(statusOnly.json(), { code: 'INVALID_SCHEMA', message: /the stored inputSchema .*Send a new inputSchema/ })
  const fixed = await app.inject({
    // Its new schema breaks what the old one accepted: a new major (the old version stays unserved, as it was).
    method: 'PATCH', url: '/api/bees/legacy-defaults', headers: publisher.headers, payload: { inputSchema: shoutInput, version: '2.0.0' }
  })
  t.equal(fixed.statusCode, 200, 'its owner repairs it')
  t.equal((await app.inject('/api/bees/legacy-defaults')).json().status, 'active', 'and it is served again')
  t.equal((await app.inject({ method: 'DELETE', url: '/api/bees/legacy-redos', headers: publisher.headers })).statusCode, 204, 'or removes it')
})

for (const backend of backends) {
  test(`${backend.name}: an instance starts on a database holding an unloadable Bee`, { skip: backend.skip }, async (t) => {
    const database = await backend.open()
    t.teardown(database.drop)
    const env = { ...allow, DATABASE_URL: database.url }
    let owner: { id: string, email: string } = { id: '', email: '' }
    await t.test('an older version stored it', async (t) => {
      const app = await build(t, { env })
      owner = await createPublisher(app)
      await app.ledger.catalog.insertBee(storedBee('legacy-defaults', owner, { inputSchema: defaultInAnyOf }))
      await app.ledger.catalog.insertBee(storedBee('legacy-fine', owner))
    })
    const lines: string[] = []
    let app: FastifyInstance | undefined
    await t.resolves((async () => { app = await build(t, { env, logLines: lines }) })(), 'the restart succeeds')
    if (app === undefined) return
    t.equal((await app.inject('/api/bees/legacy-fine')).statusCode, 200)
    t.equal((await app.inject('/api/bees/legacy-defaults')).statusCode, 404)
    t.equal(skipWarnings(lines, 'legacy-defaults'), 1)
    t.equal((await app.inject('/ready')).statusCode, 200)
  })
}

/** Definitions with `width` properties each pointing at the level below, `levels` deep. */
function nestedRefs (levels: number, width = 4) {
  const definitions: Record<string, unknown> = { l0: { type: 'string' } }
  for (let level = 1; level <= levels; level++) {
    const properties: Record<string, unknown> = {}
    for (let p = 0; p < width; p++) properties[`p${p}`] = { $ref: `#/definitions/l${level - 1}` }
    definitions[`l${level}`] = { type: 'object', properties }
  }
  return { type: 'object', properties: { root: { $ref: `#/definitions/l${levels}` } }, definitions }
}

test('$refs that expand exponentially are refused, fast', async (t) => {
  const { app, attempt } = await setup(t)
  const inputSchema = nestedRefs(8)
  t.ok(JSON.stringify(inputSchema).length < 2000, 'a small body')
  const started = Date.now()
  const refused = await attempt({ inputSchema })
  t.ok(Date.now() - started < 5000, `answered in ${Date.now() - started} ms`)
  t.equal(refused.statusCode, 400)
  t.match(refused.json(), { code: 'INVALID_SCHEMA', message: /inputSchema expands to more than \d+ (bytes|schema nodes) once its \$refs are inlined/ })

  const wide = { type: 'object', properties: { all: { $ref: '#/definitions/many' } }, definitions: { many: { anyOf: Array.from({ length: 4000 }, () => ({})) } } }
  wide.properties = { ...wide.properties, ...Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`p${i}`, { $ref: '#/definitions/many' }])) } as typeof wide.properties
  t.match((await attempt({ inputSchema: wide })).json(), { code: 'INVALID_SCHEMA', message: /expands to more than 10000 schema nodes/ }, 'nodes are counted too')

  t.equal((await attempt({ inputSchema: nestedRefs(3) }, 'modest-reuse')).statusCode, 201, 'moderate reuse of definitions is fine')
  t.equal((await app.inject('/api/bees/modest-reuse')).json().inputSchema.properties.root.properties.p3.properties.p0.properties.p1.type, 'string')
})

test('patterns are matched by RE2: ones that backtrack polynomially in JavaScript answer at once', async (t) => {
  const { app, attempt } = await setup(t)
  // Neither nests quantifiers nor repeats an alternation, so the publish-time check lets both through;
  // with JavaScript's engine, 30 characters took 109 s on the first and 200 never finished.
  const cases = [{ pattern: '^a*a*a*a*a*a*a*a*a*a*a*a*b$', unit: 'a' }, { pattern: '^\\d*\\d*\\d*\\d*\\d*\\d*\\d*\\d*\\d*\\d*x$', unit: '1' }]
  for (const [i, { pattern, unit }] of cases.entries()) {
    const published = await attempt({ inputSchema: { type: 'object', properties: { s: { type: 'string', pattern } } } }, `poly-${i}`)
    t.equal(published.statusCode, 201, `${pattern} is accepted`)
    const started = performance.now()
    const call = await app.inject({ method: 'POST', url: `/api/bees/poly-${i}/execute`, payload: { s: `${unit.repeat(5000)}!` } })
    const elapsed = performance.now() - started
    t.equal(call.statusCode, 400, `${pattern}: a non-matching input is refused`)
    t.ok(elapsed < 1000, `${pattern}: in ${elapsed.toFixed(0)} ms`)
  }
  const lookbehind = await attempt({ inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '(?<!a)b' } } } }, 'behind')
  t.equal(lookbehind.statusCode, 400, 'what RE2 cannot run is refused')
})

test('patterns that can backtrack exponentially are refused', async (t) => {
  const { app, attempt } = await setup(t)
  const withPattern = (pattern: string) => ({ inputSchema: { type: 'object', properties: { s: { type: 'string', pattern } } } })
  for (const pattern of ['^(a+)+$', '^(a*)*$', '(x+x+)+y', '^((a+)?)+$', '^(a?a?)+$', '^(a|a)*$', '^(a|ab)+$', '^((a|b)c){2,}$', '^(?:\\w|\\d){10}$']) {
    const response = await attempt(withPattern(pattern))
    t.equal(response.statusCode, 400, pattern)
    t.match(response.json(), { code: 'INVALID_SCHEMA', message: /inputSchema\/properties\/s: pattern .* may take exponential time/ }, pattern)
  }
  const viaRef = await attempt({
    outputSchema: { type: 'object', properties: { s: { $ref: '#/definitions/evil' } }, definitions: { evil: { type: 'string', pattern: '^(a+)+$' } } }
  })
  t.match(viaRef.json(), { code: 'INVALID_SCHEMA', message: /outputSchema\/properties\/s: pattern/ }, 'behind a $ref too')

  let id = 0
  for (const pattern of ['^[a-z]+$', '^(https|ftp)://', '^(-|\\+)?\\d+$', '^\\d+(?:\\.\\d+)?$', '^(https?://)?[a-z.]+$', '^[A-Z]{3}$', '^\\d{4}-\\d{2}-\\d{2}$', '^[a-z]+(\\[\\]|\\(\\))?$']) {
    t.equal((await attempt(withPattern(pattern), `safe-${id++}`)).statusCode, 201, `${pattern} is accepted`)
  }
  const started = Date.now()
  const call = await app.inject({ method: 'POST', url: '/api/bees/safe-0/execute', payload: { s: `${'a'.repeat(40)}!` } })
  t.equal(call.statusCode, 400)
  t.ok(Date.now() - started < 1000, 'a hostile input is refused at once')

  t.throws(() => checkPatterns({ type: 'object', patternProperties: { '^(a+)+$': { type: 'string' } } }, 'inputSchema'),
    { message: /inputSchema\/patternProperties: pattern/ }, 'patternProperties names are regexes too')
  t.doesNotThrow(() => checkPatterns({ type: 'string', enum: [{ pattern: '^(a+)+$' }], default: { pattern: '(a|a)*' } }, 'inputSchema'),
    'a "pattern" in data is not a regex')
})

test('a default that would never be applied is refused at publish; one on a property is applied', async (t) => {
  const { app, fake, publisher, attempt } = await setup(t)
  const ignored = [
    { where: '/properties/unit/anyOf/0', unit: { anyOf: [{ type: 'string', default: 'celsius' }, { type: 'number' }] } },
    { where: '/properties/unit/items', unit: { type: 'array', items: { type: 'string', default: 'celsius' } } }
  ]
  for (const { where, unit } of ignored) {
    const refused = await attempt({ inputSchema: { ...shoutInput, properties: { ...shoutInput.properties, unit } } })
    t.equal(refused.statusCode, 400, where)
    t.match(refused.json(), { code: 'INVALID_SCHEMA', message: `inputSchema${where}: this "default" would never be applied` }, where)
  }
  t.equal((await app.inject('/api/bees/candidate')).statusCode, 404, 'nothing was stored')

  const unit = { default: 'celsius', anyOf: [{ type: 'string' }, { type: 'number' }] }
  await publish(app, publisher.headers, beeBody('with-default', fake.url, { inputSchema: { ...shoutInput, properties: { ...shoutInput.properties, unit } } }))
  const response = await app.inject({ method: 'POST', url: '/api/bees/with-default/execute', payload: { text: 'hi' } })
  t.equal(response.statusCode, 200)
  t.same(JSON.parse(fake.calls.at(-1)!.body), { text: 'hi', unit: 'celsius' }, 'the property\'s default reached the Bee')
})

test('an outputSchema must describe an object, at publish and at every change', async (t) => {
  const { app, publisher, attempt } = await setup(t)
  for (const outputSchema of [{ type: 'string' }, {}, { type: 'array', items: { type: 'string' } }, { type: ['object', 'null'] }, { type: 'integer' }]) {
    const response = await attempt({ outputSchema })
    t.equal(response.statusCode, 400, JSON.stringify(outputSchema))
    t.match(response.json(), { code: 'INVALID_SCHEMA', message: /outputSchema must have type "object".*Honey's result/ }, JSON.stringify(outputSchema))
  }
  await publish(app, publisher.headers, beeBody('objective', 'http://127.0.0.1:9/x'))
  const patched = await app.inject({ method: 'PATCH', url: '/api/bees/objective', headers: publisher.headers, payload: { outputSchema: { type: 'string' } } })
  t.equal(patched.statusCode, 400)
  t.equal(patched.json().code, 'INVALID_SCHEMA')
  t.same((await app.inject('/api/bees/objective')).json().outputSchema, shoutOutput, 'unchanged')
})

test('a sunsetAt that is no real date is refused', async (t) => {
  const { app, publisher } = await setup(t)
  await publish(app, publisher.headers, beeBody('leaping', 'http://127.0.0.1:9/x'))
  for (const sunsetAt of ['9999-12-31T23:59:60Z', '2016-12-31T23:59:60Z']) {
    const response = await app.inject({
      method: 'PATCH', url: '/api/bees/leaping', headers: publisher.headers, payload: { status: 'deprecated', statusMessage: 'Use another.', sunsetAt }
    })
    t.equal(response.statusCode, 400, sunsetAt)
    t.match(response.json(), { code: 'VALIDATION_FAILED', message: /sunsetAt/, details: [{ field: '/sunsetAt', reason: /date-time that exists/ }] }, sunsetAt)
  }
  t.equal((await app.inject('/api/bees/leaping')).json().status, 'active', 'nothing changed')
  const fine = await app.inject({
    method: 'PATCH', url: '/api/bees/leaping', headers: publisher.headers, payload: { status: 'deprecated', statusMessage: 'Use another.', sunsetAt: '2027-06-30T00:00:00+02:00' }
  })
  t.equal(fine.statusCode, 200, 'an offset date-time is fine')
})

test('a stored Bee whose schema Zod cannot convert is skipped at load, and a change must replace the schema', async (t) => {
  const lines: string[] = []
  const { app, publisher } = await setup(t, lines)
  const unconvertible = { type: 'object', properties: { v: { type: 'string', pattern: '^\\p{L}+$' } } }
  await app.ledger.catalog.insertBee(storedBee('legacy-unicode', publisher, { outputSchema: unconvertible }))
  await app.ledger.catalog.insertBee(storedBee('legacy-fine', publisher))
  await app.catalog.refresh()
  t.equal((await app.inject('/api/bees/legacy-fine')).statusCode, 200)
  t.equal((await app.inject('/api/bees/legacy-unicode')).statusCode, 404, 'left out')
  t.equal(skipWarnings(lines, 'legacy-unicode'), 1, 'with one warning')
  t.ok(lines.some((line) => line.includes('"beeId":"legacy-unicode"') && line.includes('outputSchema/properties/v: Zod')), 'saying why')
  const statusOnly = await app.inject({ method: 'PATCH', url: '/api/bees/legacy-unicode', headers: publisher.headers, payload: { status: 'inactive' } })
  t.equal(statusOnly.statusCode, 400)
  t.match(statusOnly.json(), { code: 'INVALID_SCHEMA', message: /the stored outputSchema\/properties\/v: Zod .*Send a new outputSchema/ })
})
