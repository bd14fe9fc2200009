import { test } from 'tap'
import { compileBodySchema } from '../../../src/core/validation.js'
import { exampleValue } from '../../../src/http/markdown/example-value.js'
import { shoutInput } from '../../publishing-helper.js'

test('the example of a schema passes that schema', async (t) => {
  const schemas: object[] = [
    shoutInput,
    {
      type: 'object',
      required: ['n', 'm', 'k', 'when', 'mail', 'list'],
      properties: {
        n: { type: 'integer', minimum: 5, maximum: 9 },
        m: { type: 'number', exclusiveMinimum: 0, maximum: 0.5 },
        k: { type: 'integer', minimum: 3, multipleOf: 4 },
        when: { type: 'string', format: 'date-time' },
        mail: { type: 'string', format: 'email' },
        list: { type: 'array', minItems: 2, items: { type: 'string', minLength: 10 } }
      }
    },
    {
      type: 'object',
      required: ['choice', 'nested'],
      properties: {
        choice: { type: 'string', enum: ['red', 'green'] },
        nested: { type: 'object', required: ['flag'], properties: { flag: { type: 'boolean' }, skipped: { type: 'string' } } }
      }
    },
    { type: 'object', required: ['low'], properties: { low: { type: 'number', minimum: -10, maximum: -2 } } }
  ]
  for (const schema of schemas) {
    const value = exampleValue(schema)
    const validate = compileBodySchema(schema)
    t.ok(validate(structuredClone(value)), `${JSON.stringify(value)} passes ${JSON.stringify(schema)}`)
  }
  t.same(exampleValue(schemas[2] as object), { choice: 'red', nested: { flag: false } }, 'only required fields')
})

test('what a schema offers is used first: example, examples, default, const', async (t) => {
  t.equal(exampleValue({ type: 'string', example: 'Hello bees.' }), 'Hello bees.')
  t.equal(exampleValue({ type: 'string', examples: ['first', 'second'] }), 'first')
  t.equal(exampleValue({ type: 'integer', default: 7 }), 7)
  t.equal(exampleValue({ const: 'loud' }), 'loud')
  t.same(exampleValue({ type: ['string', 'null'] }), 'example', 'a nullable type gives a value, not null')
})

test('a pattern cannot always be met: the value is a sketch the page marks as such', async (t) => {
  const schema = { type: 'object', required: ['code'], properties: { code: { type: 'string', pattern: '^[0-9]{4}$' } } }
  t.notOk(compileBodySchema(schema)(exampleValue(schema)))
})
