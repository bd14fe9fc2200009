import { test } from 'tap'
import type { JsonObject } from '../../../src/core/publishing/json-schema.js'
import { breakingChanges } from '../../../src/core/publishing/schema-diff.js'

const input: JsonObject = {
  type: 'object',
  properties: {
    text: { type: 'string', maxLength: 100 },
    mode: { type: 'string', enum: ['loud', 'quiet'] },
    tags: { type: 'array', items: { type: 'string' } }
  },
  required: ['text']
}
const output: JsonObject = {
  type: 'object',
  properties: { shout: { type: 'string' }, level: { type: 'string', enum: ['high', 'low'] } },
  required: ['shout', 'level']
}
const v1 = { inputSchema: input, outputSchema: output }

/** v1 with its input or output changed by `change`, on a copy. */
function changed (which: 'inputSchema' | 'outputSchema', change: (schema: any) => void) {
  const next = structuredClone(v1)
  change(next[which])
  return breakingChanges(v1, next)
}

test('compatible changes break nothing', async (t) => {
  t.same(breakingChanges(v1, structuredClone(v1)), [], 'the same schemas')
  t.same(changed('inputSchema', (s) => { s.properties.extra = { type: 'number' } }), [], 'a new optional input')
  t.same(changed('inputSchema', (s) => { s.properties.mode.enum.push('whisper') }), [], 'an input enum widened')
  t.same(changed('inputSchema', (s) => { s.properties.text.maxLength = 200 }), [], 'an input bound relaxed')
  t.same(changed('inputSchema', (s) => { s.required = [] }), [], 'an input no longer required')
  t.same(changed('outputSchema', (s) => { s.properties.extra = { type: 'number' }; s.required.push('extra') }), [], 'a new output, even required')
  t.same(changed('outputSchema', (s) => { s.properties.level.enum = ['high'] }), [], 'an output enum narrowed')
  t.same(changed('inputSchema', (s) => { s.properties.text.description = 'Now described.' }), [], 'a description')
})

test('each kind of breaking change is named, with where it is', async (t) => {
  t.same(changed('inputSchema', (s) => { s.required.push('mode') }), [{ field: '/inputSchema/required', reason: '"mode" is newly required' }])
  t.same(changed('inputSchema', (s) => { delete s.properties.mode }), [{ field: '/inputSchema/properties/mode', reason: 'property removed (or renamed)' }])
  t.same(changed('inputSchema', (s) => { s.properties.words = s.properties.text; delete s.properties.text; s.required = ['words'] }), [
    { field: '/inputSchema/properties/text', reason: 'property removed (or renamed)' },
    { field: '/inputSchema/required', reason: '"words" is newly required' }
  ], 'a rename is a removal (and here a new requirement)')
  t.same(changed('outputSchema', (s) => { delete s.properties.shout; s.required = ['level'] }), [
    { field: '/outputSchema/properties/shout', reason: 'property removed (or renamed)' },
    { field: '/outputSchema/required', reason: '"shout" is no longer always answered' }
  ])
  t.same(changed('outputSchema', (s) => { s.required = ['shout'] }), [{ field: '/outputSchema/required', reason: '"level" is no longer always answered' }])
  t.same(changed('inputSchema', (s) => { s.properties.mode.enum = ['loud'] }), [{ field: '/inputSchema/properties/mode', reason: 'enum narrowed: "quiet" no longer accepted' }])
  t.same(changed('inputSchema', (s) => { s.properties.text.enum = ['a'] }), [{ field: '/inputSchema/properties/text', reason: 'enum added: only "a" accepted' }])
  t.same(changed('outputSchema', (s) => { s.properties.level.enum.push('medium') }), [{ field: '/outputSchema/properties/level', reason: 'enum widened: "medium" may now be answered' }])
  t.same(changed('inputSchema', (s) => { s.properties.text.type = 'integer' }), [{ field: '/inputSchema/properties/text', reason: 'type narrowed: string no longer accepted' }])
  t.same(changed('outputSchema', (s) => { s.properties.shout.nullable = true }), [{ field: '/outputSchema/properties/shout', reason: 'type widened: null may now be answered' }])
  t.same(changed('inputSchema', (s) => { s.properties.text.maxLength = 50 }), [{ field: '/inputSchema/properties/text', reason: 'narrowed: maxLength 100 → 50' }])
  t.same(changed('inputSchema', (s) => { s.properties.tags.items.type = 'number' }), [{ field: '/inputSchema/properties/tags/items', reason: 'type narrowed: string no longer accepted' }], 'inside array items')
  t.same(changed('inputSchema', (s) => { s.additionalProperties = false }), [{ field: '/inputSchema', reason: 'additional properties no longer accepted' }])
})

test('integer is within number: widening an input to number breaks nothing, narrowing it to integer does', async (t) => {
  const numbers = (type: string) => ({ inputSchema: { type: 'object', properties: { n: { type } } }, outputSchema: { type: 'object' } })
  t.same(breakingChanges(numbers('integer'), numbers('number')), [])
  t.same(breakingChanges(numbers('number'), numbers('integer')), [{ field: '/inputSchema/properties/n', reason: 'type narrowed: number no longer accepted' }])
})
