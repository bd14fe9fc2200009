import { test } from 'tap'
import { schemaTable } from '../../../src/http/markdown/schema-table.js'

const rowsOf = (table: string) => table.split('\n').slice(2).map((line) => line.slice(2, -2).split(/ (?<!\\)\| /))

test('nested objects and arrays of objects are flattened to dotted paths, required per parent', async (t) => {
  const table = schemaTable({
    type: 'object',
    required: ['place'],
    properties: {
      place: {
        type: 'object',
        required: ['lat'],
        description: 'Where.',
        properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, label: { type: 'string', nullable: true } }
      },
      tags: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'object', properties: { name: { type: 'string', pattern: 'a|b' } } } }
    }
  })
  t.same(table.split('\n').slice(0, 2), ['| Field | Type | Required | Constraints | Description |', '|---|---|---|---|---|'])
  t.same(rowsOf(table), [
    ['`place`', 'object', 'yes', '', 'Where.'],
    ['`place.lat`', 'number', 'yes', '≥ -90; ≤ 90', ''],
    ['`place.label`', 'string or null', 'no', '', ''],
    ['`tags`', 'array of object', 'no', 'min items 1; unique items', ''],
    ['`tags[].name`', 'string', 'no', 'pattern `a\\|b`', '']
  ])
})

test('constraints read as written in either dialect, and text cannot break the table', async (t) => {
  const table = schemaTable({
    type: 'object',
    additionalProperties: false,
    properties: {
      draft: { type: 'number', exclusiveMinimum: 0 },
      openapi: { type: 'integer', minimum: 0, exclusiveMinimum: true, maximum: 10, multipleOf: 2 },
      mode: { type: 'string', enum: ['a', 'b'], default: 'a', format: 'email' },
      fixed: { const: 'x' },
      tricky: { type: 'string', description: 'Line one |\n## Not a heading', maxLength: 5 }
    }
  })
  t.same(rowsOf(table), [
    ['`draft`', 'number', 'no', '> 0', ''],
    ['`openapi`', 'integer', 'no', '> 0; ≤ 10; multiple of 2', ''],
    ['`mode`', 'string (email)', 'no', 'one of `"a"`, `"b"`; default `"a"`', ''],
    ['`fixed`', 'any', 'no', 'always `"x"`', ''],
    ['`tricky`', 'string', 'no', 'max length 5', 'Line one \\| ## Not a heading']
  ])
  t.equal(table.split('\n').length, 7, 'one line per field')
})

test('a schema without fields is one row, or says it has none', async (t) => {
  t.same(rowsOf(schemaTable({ type: 'array', items: { type: 'string' } })), [['`(whole value)`', 'array of string', 'yes', '', '']])
  t.equal(schemaTable({ type: 'object', properties: {} }), 'An object with no declared fields.')
})
