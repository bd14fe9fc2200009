import { test } from 'tap'
import { jsonSyntaxError } from '../../src/core/json-syntax.js'

test('JSON is JSON', async (t) => {
  for (const text of ['{}', '[]', ' {"a": [1, -0.5e+3, true, false, null, "\\u00e9\\n"]} ', '"x"', '0', `${'['.repeat(10_000)}${']'.repeat(10_000)}`]) {
    t.equal(jsonSyntaxError(text), null, text.slice(0, 40))
    t.doesNotThrow(() => JSON.parse(text))
  }
})

test('the first place a text breaks JSON, and what was expected there', async (t) => {
  const cases: Array<[string, number, RegExp]> = [
    ['', 0, /^a value$/],
    ['{"a": ', 6, /the body ends/],
    ['{"a": tru}', 6, /^a value/],
    ["{'a': 1}", 1, /property name in double quotes/],
    ['{"a" 1}', 5, /':'/],
    ['{"a": 1,}', 8, /property name/],
    ['[1, 2,]', 6, /^a value/],
    ['[1 2]', 3, /',' or '\]'/],
    ['{"a": 1]', 7, /',' or '\}'/],
    ['{} {}', 3, /nothing more/],
    ['"a\\q"', 2, /string/],
    ['"a\nb"', 2, /string/],
    ['"open', 5, /string/]
  ]
  for (const [text, offset, expected] of cases) {
    const problem = jsonSyntaxError(text)
    t.equal(problem?.offset, offset, JSON.stringify(text))
    t.match(problem?.expected, expected, JSON.stringify(text))
    t.throws(() => JSON.parse(text))
  }
})

test('a long or deep text is scanned without recursion', async (t) => {
  t.equal(jsonSyntaxError(`${'['.repeat(1_000_000)}x`)?.offset, 1_000_000)
  t.equal(jsonSyntaxError(`"${'a'.repeat(2_000_000)}`)?.offset, 2_000_001)
})
