import { test } from 'tap'
import { SchemaRefused } from '../../../src/core/publishing/json-schema.js'
import { checkLoadable, knownLoadable } from '../../../src/core/publishing/schema-checks.js'

const text = (pattern: string) => ({ type: 'object', properties: { text: { type: 'string', pattern } }, required: ['text'] })

test('a schema passes its checks once per process, and a refusal is made in full every time', async (t) => {
  const fine = text('^[a-z]+$')
  t.notOk(knownLoadable(fine), 'not checked yet')
  checkLoadable(fine, 'inputSchema')
  t.ok(knownLoadable(structuredClone(fine)), 'the same text passed: known, whatever object holds it')

  // The passing schema with one pattern changed is another text: it is checked, and refused, every time.
  const nested = text('^(a+)+$')
  for (const round of [1, 2]) {
    let refusal: unknown
    try {
      checkLoadable(nested, 'inputSchema')
    } catch (error) {
      refusal = error
    }
    t.ok(refusal instanceof SchemaRefused, `round ${round}: refused`)
    t.match((refusal as Error).message, /inputSchema\/properties\/text: pattern "\^\(a\+\)\+\$" may take exponential time/, `round ${round}: with its message`)
  }
  t.notOk(knownLoadable(nested), 'a refused schema is never known as loadable')
  t.throws(() => checkLoadable({ type: 'object', propertie: {} }, 'outputSchema'), { message: /outputSchema is not a valid JSON Schema/ })
})
