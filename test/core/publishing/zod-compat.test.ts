import { test, type Test } from 'tap'
import type { JsonObject } from '../../../src/core/publishing/json-schema.js'
import { toInputSchema, toOutputSchema } from '../../../src/core/publishing/schema-conversion.js'
import { toZod } from '../../../src/core/publishing/zod-compat.js'
import { compileBodySchema } from '../../../src/core/validation.js'
import { build } from '../../helper.js'
import { beeBody, createPublisher, draft07Input, shoutInput, shoutOutput } from '../../publishing-helper.js'

/** A sample body and whether Apiary's validator takes it. */
type Sample = [value: unknown, accepted: boolean, what: string]

/**
 * Checks that Ajv (Apiary's validator) and the Zod schema converted from the same stored schema give
 * each sample the expected verdict, and that what both accept comes out the same (defaults filled
 * in, extra properties kept).
 */
function agree (t: Test, name: string, schema: JsonObject, samples: Sample[]): void {
  const validate = compileBodySchema(structuredClone(schema))
  const zod = toZod(schema, name)
  for (const [value, accepted, what] of samples) {
    const validated = structuredClone(value)
    t.equal(validate(validated), accepted, `${name}, ${what}: Ajv ${accepted ? 'accepts' : 'refuses'}`)
    const parsed = zod.safeParse(structuredClone(value))
    t.equal(parsed.success, accepted, `${name}, ${what}: Zod ${accepted ? 'accepts' : 'refuses'}`)
    if (accepted && parsed.success) t.same(parsed.data, validated, `${name}, ${what}: the same value comes out`)
  }
}

/** Samples for every built-in Bee: one valid body at least, and a near miss for each constraint. */
const builtinSamples: Record<string, { input: Sample[], output: Sample[] }> = {
  'sentiment-analyzer': {
    input: [
      [{ text: 'What a great day' }, true, 'valid'],
      [{ text: 'ok', note: 1 }, true, 'extra properties kept'],
      [{}, false, 'missing required'],
      [{ text: 5 }, false, 'wrong type'],
      [{ text: '' }, false, 'too short'],
      [{ text: 'a'.repeat(20_001) }, false, 'too long'],
      [{ text: '   ' }, false, 'pattern miss (only white space)'],
      [{ text: null }, false, 'null']
    ],
    output: [
      [{ sentiment: 'positive', confidence: 0.9 }, true, 'valid'],
      [{ sentiment: 'happy', confidence: 0.5 }, false, 'enum miss'],
      [{ sentiment: 'neutral', confidence: 1.5 }, false, 'above maximum'],
      [{ sentiment: 'neutral', confidence: '0.5' }, false, 'wrong type'],
      [{ sentiment: 'neutral' }, false, 'missing required']
    ]
  },
  'text-summarizer': {
    input: [
      [{ text: 'Hi there.' }, true, 'valid, the default maxLength filled in'],
      [{ text: 'Hi there.', maxLength: 10 }, true, 'valid with maxLength'],
      [{ text: 'Hi.', maxLength: 0 }, false, 'below minimum'],
      [{ text: 'Hi.', maxLength: 1.5 }, false, 'not an integer'],
      [{ text: 'Hi.', maxLength: 1_000_001 }, false, 'above maximum'],
      [{ text: 'Hi.', maxLength: '10' }, false, 'wrong type, not coerced'],
      [{ text: '\n' }, false, 'pattern miss'],
      [{ maxLength: 10 }, false, 'missing required']
    ],
    output: [
      [{ summary: 'A.', keyPoints: ['A.'] }, true, 'valid'],
      [{ summary: 'A.', keyPoints: [1] }, false, 'wrong item type'],
      [{ summary: 'A.', keyPoints: 'A.' }, false, 'not an array'],
      [{ keyPoints: [] }, false, 'missing required']
    ]
  },
  'weather-sensor': {
    input: [
      [{ latitude: 52.5, longitude: 13.4 }, true, 'valid'],
      [{ latitude: 91, longitude: 0 }, false, 'latitude above maximum'],
      [{ latitude: 0, longitude: -181 }, false, 'longitude below minimum'],
      [{ latitude: '1', longitude: 0 }, false, 'wrong type'],
      [{ latitude: 0 }, false, 'missing required']
    ],
    output: [
      [{ temperature: 21.5, condition: 'clear sky' }, true, 'valid'],
      [{ temperature: 21.5, condition: 'clear sky', humidity: 40 }, true, 'valid with humidity'],
      [{ temperature: 21.5, condition: 'clear sky', humidity: 101 }, false, 'humidity above maximum'],
      [{ temperature: 21.5, condition: 1 }, false, 'wrong type'],
      [{ condition: 'clear sky' }, false, 'missing required']
    ]
  }
}

test('every built-in Bee\'s schemas convert to Zod, which accepts and refuses what Apiary does', async (t) => {
  const app = await build(t)
  const builtins = app.registry.builtins()
  t.same(builtins.map((bee) => bee.record.id).sort(), Object.keys(builtinSamples).sort(), 'samples cover every built-in Bee')
  for (const bee of builtins) {
    const samples = builtinSamples[bee.record.id]
    if (samples === undefined) continue
    const json = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as JsonObject
    agree(t, `${bee.record.id} inputSchema`, json(bee.record.inputSchema), samples.input)
    agree(t, `${bee.record.id} outputSchema`, json(bee.record.outputSchema), samples.output)
  }
})

/**
 * The schemas published in the test suite (stored as publishing converts them): the publishing
 * helper's, publishing.test.ts's draft-07 conversion, bounded-errors.test.ts's array, and one that
 * uses every other keyword a published schema may carry.
 */
const everyKeyword = {
  type: 'object',
  additionalProperties: false,
  required: ['kind'],
  properties: {
    kind: { type: 'string', enum: ['a', 'b'] },
    size: { type: 'integer', minimum: 1, default: 3 },
    label: { type: 'string', nullable: true, maxLength: 3 },
    choice: { type: 'string', enum: ['x'], nullable: true },
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' }, minItems: 1, maxItems: 2, uniqueItems: true },
    when: { type: 'string', format: 'date' },
    contact: { anyOf: [{ type: 'string', format: 'email' }, { type: 'integer' }] },
    nested: { type: 'object', properties: { on: { type: 'boolean' } }, required: ['on'] }
  }
}

const published: Array<[name: string, stored: JsonObject, samples: Sample[]]> = [
  ['publishing-helper inputSchema', toInputSchema(shoutInput), [
    [{ text: 'hey' }, true, 'valid'], [{ text: '' }, false, 'too short'], [{}, false, 'missing required']
  ]],
  ['publishing-helper outputSchema', toOutputSchema(shoutOutput), [
    [{ shout: 'HEY', length: 3 }, true, 'valid'], [{ shout: 'HEY', length: 1.5 }, false, 'not an integer'], [{ shout: 'HEY' }, false, 'missing required']
  ]],
  ['publishing.test.ts converted inputSchema', toInputSchema(beeBody('converted', 'https://x.example', { inputSchema: draft07Input }).inputSchema), [
    [{ text: 'a', mode: 'loud', note: 'n', level: 0.5 }, true, 'valid'],
    [{ text: 'a', note: null }, true, 'nullable null'],
    [{ text: '' }, false, 'too short (through the $ref)'],
    [{ text: 'a', note: 1 }, false, 'wrong type beside null'],
    [{ text: 'a', mode: 'quiet' }, false, 'const miss'],
    [{ text: 'a', level: 0 }, false, 'exclusive minimum']
  ]],
  ['bounded-errors.test.ts inputSchema', toInputSchema({ type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } }), [
    [{ tags: ['a'] }, true, 'valid'], [{ tags: [1] }, false, 'wrong item type'], [{ tags: 'a' }, false, 'not an array']
  ]],
  ['every keyword', toInputSchema(everyKeyword), [
    [{ kind: 'a' }, true, 'valid, the default size filled in'],
    [{ kind: 'b', size: 2, label: 'abc', choice: 'x', tags: ['ab', 'c'], when: '2024-01-31', contact: 'a@example.com', nested: { on: true } }, true, 'all set'],
    [{ kind: 'a', label: null }, true, 'nullable null'],
    [{ kind: 'a', contact: 7 }, true, 'the other anyOf branch'],
    [{}, false, 'missing required'],
    [{ kind: 'c' }, false, 'enum miss'],
    [{ kind: 'a', extra: 1 }, false, 'extra property under additionalProperties: false'],
    [{ kind: 'a', size: 0 }, false, 'below minimum'],
    [{ kind: 'a', size: '3' }, false, 'wrong type, not coerced'],
    [{ kind: 'a', label: 'abcd' }, false, 'too long'],
    [{ kind: 'a', choice: null }, false, 'nullable enum without null refuses null'],
    [{ kind: 'a', tags: ['A'] }, false, 'pattern miss'],
    [{ kind: 'a', tags: [] }, false, 'too few items'],
    [{ kind: 'a', tags: ['a', 'b', 'c'] }, false, 'too many items'],
    [{ kind: 'a', tags: ['a', 'a'] }, false, 'duplicate items'],
    [{ kind: 'a', when: '2024-13-01' }, false, 'bad format'],
    [{ kind: 'a', contact: 'x' }, false, 'no anyOf branch (bad email)'],
    [{ kind: 'a', contact: true }, false, 'no anyOf branch (wrong type)'],
    [{ kind: 'a', nested: {} }, false, 'nested missing required']
  ]]
]

test('the schemas published in the test suite convert to Zod, which accepts and refuses what Apiary does', async (t) => {
  for (const [name, stored, samples] of published) agree(t, name, stored, samples)
})

/** One string with the format each side accepts and one each side refuses, where Zod checks the format as Ajv does. */
const agreedFormats: Record<string, [valid: string, invalid: string]> = {
  date: ['2024-01-31', '2024-13-01'],
  time: ['12:30:00Z', '25:00:00Z'],
  'date-time': ['2024-01-31T12:30:00+01:00', '2024-01-31 12:30'],
  duration: ['P1DT2H', 'P'],
  uri: ['urn:isbn:0451450523', 'not a uri'],
  email: ['a@example.com', 'a@'],
  hostname: ['example.com', '-bad.example'],
  ipv4: ['192.0.2.1', '256.1.1.1'],
  ipv6: ['2001:db8::1', '2001:db8:::1'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456']
}

test('formats Zod checks as Apiary does', async (t) => {
  for (const [format, [valid, invalid]] of Object.entries(agreedFormats)) {
    agree(t, `format ${format}`, toInputSchema({ type: 'object', properties: { v: { type: 'string', format } } }), [
      [{ v: valid }, true, 'valid'], [{ v: invalid }, false, 'bad format']
    ])
  }
})

/**
 * Where Zod and Apiary legitimately differ (listed in docs/publishers.md): each entry is a value Apiary
 * decides one way and Zod the other. The test fails when a difference goes away, so the list stays true.
 */
const differences: Array<[what: string, schema: JsonObject, value: unknown, apiaryAccepts: boolean]> = [
  ['format iso-time: Zod ignores it', { type: 'string', format: 'iso-time' }, 'noon', false],
  ['format iso-date-time: Zod ignores it', { type: 'string', format: 'iso-date-time' }, 'today', false],
  ['format url: Zod ignores it', { type: 'string', format: 'url' }, 'http://10.0.0.1/', false],
  ['format uri-template: Zod ignores it', { type: 'string', format: 'uri-template' }, 'a b', false],
  ['format json-pointer: Zod ignores it', { type: 'string', format: 'json-pointer' }, 'a', false],
  ['format json-pointer-uri-fragment: Zod ignores it', { type: 'string', format: 'json-pointer-uri-fragment' }, 'a', false],
  ['format relative-json-pointer: Zod ignores it', { type: 'string', format: 'relative-json-pointer' }, 'a', false],
  ['format byte: Zod ignores it', { type: 'string', format: 'byte' }, 'not base64', false],
  ['format int32: Zod ignores number formats', { type: 'integer', format: 'int32' }, 2 ** 31, false],
  ['format uri-reference: Zod wants an absolute URL', { type: 'string', format: 'uri-reference' }, '/relative/path', true],
  ['format uuid: Zod wants an RFC 9562 variant', { type: 'string', format: 'uuid' }, '123e4567-e89b-12d3-c456-426614174000', true],
  ['pattern \\S: RE2\'s white space is ASCII, JavaScript\'s is Unicode', { type: 'string', pattern: '\\S' }, '\u00a0', true],
  ['integer: Zod takes only safe integers', { type: 'integer' }, 1e300, true],
  ['multipleOf: Ajv divides in floating point, Zod does not', { type: 'number', multipleOf: 0.1 }, 0.3, false]
]

test('where Zod and Apiary legitimately differ, they differ as documented', async (t) => {
  for (const [what, property, value, apiaryAccepts] of differences) {
    const schema = toInputSchema({ type: 'object', properties: { v: property } })
    t.equal(compileBodySchema(structuredClone(schema))({ v: value }), apiaryAccepts, `${what}: Apiary ${apiaryAccepts ? 'accepts' : 'refuses'}`)
    t.equal(toZod(schema, 'inputSchema').safeParse({ v: value }).success, !apiaryAccepts, `${what}: Zod does the opposite`)
  }
})

/** Schemas Ajv loads but Zod cannot read, or would read differently, with the reason given. */
const unconvertible: Array<[what: string, property: JsonObject, reason: RegExp]> = [
  ['"not"', { not: { type: 'string' } }, /\/properties\/v: .*supports "not" only as \{"not": \{\}\}/],
  ['a keyword without a type', { type: 'string', anyOf: [{ minLength: 2 }, { pattern: '^x' }] }, /\/properties\/v\/anyOf\/0: .*"minLength" only beside a "type"/],
  ['an enum value its type excludes', { type: 'string', enum: ['a', 1] }, /\/properties\/v: .*enum value 1, which "type" excludes/],
  ['a constraint beside an enum', { type: 'string', enum: ['a', 'bb'], maxLength: 1 }, /\/properties\/v: .*reads only the values, not "maxLength"/],
  ['a Unicode property escape', { type: 'string', pattern: '^\\p{L}+$' }, /\/properties\/v: .*pattern "\^\\\\p\{L\}\+\$": "\\p…" needs the "u" flag/],
  ['RE2-only syntax', { type: 'string', pattern: 'a\\z' }, /\/properties\/v: .*JavaScript cannot read it/],
  ['formatMinimum', { type: 'string', format: 'date', formatMinimum: '2020-01-01' }, /\/properties\/v: .*ignores "formatMinimum"/]
]

test('a schema Zod cannot read as Apiary does is refused, naming the part and the reason', async (t) => {
  for (const [what, property, reason] of unconvertible) {
    const schema = { type: 'object', properties: { v: property } } as JsonObject
    t.doesNotThrow(() => compileBodySchema(structuredClone(schema)), `${what}: Apiary's validator loads it`)
    t.throws(() => toZod(schema, 'inputSchema'), { name: 'Error', message: reason }, what)
  }
})

test('publishing refuses a schema Zod cannot convert: 400 INVALID_SCHEMA naming the part', async (t) => {
  const app = await build(t, { env: { EGRESS_ALLOWLIST: '127.0.0.1' } })
  const publisher = await createPublisher(app)
  const attempt = (extra: Record<string, unknown>) =>
    app.inject({ method: 'POST', url: '/api/bees', headers: publisher.headers, payload: beeBody('unzoddable', 'http://127.0.0.1:9/bee', extra) })

  const input = await attempt({ inputSchema: { type: 'object', properties: { v: { not: { type: 'string' } } } } })
  t.equal(input.statusCode, 400)
  t.match(input.json(), { error: String, code: 'INVALID_SCHEMA', message: /^inputSchema\/properties\/v: Zod \(z\.fromJSONSchema\) would not read this schema/ })

  const output = await attempt({ outputSchema: { type: 'object', properties: { v: { type: 'string', pattern: '\\p{Lu}' } } } })
  t.equal(output.statusCode, 400)
  t.match(output.json(), { code: 'INVALID_SCHEMA', message: /^outputSchema\/properties\/v: .*needs the "u" flag/ })
  t.equal((await app.inject('/api/bees/unzoddable')).statusCode, 404, 'nothing was stored')
  t.equal((await attempt({})).statusCode, 201, 'the same Bee with convertible schemas is published')
})
