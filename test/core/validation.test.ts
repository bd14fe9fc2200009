import { test } from 'tap'
import { BeeCall, SendMessageParams } from '../../src/http/a2a/schemas.js'
import { FindBeesInput } from '../../src/http/mcp/find-bees.js'
import { ToolsCall } from '../../src/http/mcp/tools-call.js'
import { checkBodySchema, compileBodySchema, EVERY_ERROR_VALUES } from '../../src/core/validation.js'
import { build } from '../helper.js'

/** Every regular expression in a JSON document: each string `pattern`, and the names of each `patternProperties`. */
function patternsIn (value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) patternsIn(item, found)
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === 'pattern' && typeof child === 'string') found.add(child)
      if (key === 'patternProperties' && typeof child === 'object' && child !== null) for (const name of Object.keys(child)) found.add(name)
      patternsIn(child, found)
    }
  }
  return found
}

/** Milliseconds V8 takes to search `input` for `pattern`, the best of five. */
function searchMs (pattern: RegExp, input: string): number {
  let best = Infinity
  for (let i = 0; i < 5; i++) {
    const started = performance.now()
    pattern.test(input)
    best = Math.min(best, performance.now() - started)
  }
  return best
}

/**
 * Inputs that make a backtracking pattern slow: a run of one character (each the pattern names, a space, a
 * letter, a digit, a no-break space) ending in one it cannot match, at ten times the length each step. A linear
 * search takes about ten times as long per step; a polynomial one a hundred times or more, so it fails at a
 * length where it still answers in seconds.
 */
function isLinear (source: string): { linear: boolean, why: string } {
  const pattern = new RegExp(source)
  const units = new Set([...source.replace(/\\./g, ''), ' ', 'a', '0', '\u00a0'].filter((unit) => !'^$()[]{}*+?|.'.includes(unit)))
  for (const unit of units) {
    let previous = searchMs(pattern, `${unit.repeat(100)}\u0000`)
    for (const length of [1_000, 10_000, 100_000, 1_000_000]) {
      const ms = searchMs(pattern, `${unit.repeat(length)}\u0000`)
      // The 20 ms allow a scheduler's time slice: CI, four test processes on two cores, once measured a linear search
      // 17 ms slower than that. A polynomial search still passes 100 ms by a million characters.
      if (ms > 30 * previous + 20 || ms > 100) return { linear: false, why: `${JSON.stringify(unit)} × ${length}: ${ms.toFixed(1)} ms` }
      previous = ms
    }
  }
  return { linear: true, why: '' }
}

test('every pattern in the service\'s own schemas, which run on V8, is matched in time linear in the input', async (t) => {
  const app = await build(t)
  const document = (await app.inject('/openapi/openapi.json')).json()
  const own = patternsIn(document, new Set())
  for (const schema of [ToolsCall, FindBeesInput, SendMessageParams, BeeCall]) patternsIn(schema, own)
  for (const bee of app.registry.builtins()) patternsIn([bee.record.inputSchema, bee.record.outputSchema], own)
  t.ok(own.has('\\S'), 'the built-in Bees\' text inputs are among them')
  t.ok(own.size > 5, `${own.size} patterns`)
  for (const source of own) {
    const { linear, why } = isLinear(source)
    t.ok(linear, `${source}${why === '' ? '' : `: ${why}`}`)
  }
  t.notOk(isLinear('^a*a*a*b$').linear, 'the probe finds a pattern that backtracks polynomially')
})

test('the service\'s own body schemas, compiled without the draft-07 check a publisher\'s passes, are valid draft-07', async (t) => {
  const app = await build(t)
  const own = [FindBeesInput, ...app.registry.builtins().flatMap((bee) => [bee.record.inputSchema, bee.record.outputSchema])]
  t.ok(own.length >= 7, `${own.length} schemas`)
  for (const schema of own) t.doesNotThrow(() => checkBodySchema(schema), JSON.stringify(schema).slice(0, 80))
  t.throws(() => checkBodySchema({ type: 'object', properties: { text: { type: 'strng' } } }), /schema is invalid/, 'the check refuses a misspelt type')
})

test('a built-in Bee\'s pattern means what JavaScript says on every door; a publisher\'s runs on RE2', async (t) => {
  const app = await build(t)
  // U+00A0 and U+3000 are white space to ECMA-262's \s, which JSON Schema's patterns use, not to RE2's.
  const blank = { text: '\u00a0\u3000' }
  const http = await app.inject({ method: 'POST', url: '/api/bees/text-summarizer/execute', payload: blank })
  t.equal(http.statusCode, 400)
  t.equal(http.json().code, 'VALIDATION_FAILED', 'HTTP refuses text of only Unicode white space')
  const mcp = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'text-summarizer', arguments: blank } }
  })
  const refused = mcp.json().result
  t.equal(refused.isError, true)
  t.match(JSON.parse(refused.content[0].text), { code: 'VALIDATION_FAILED', message: /\/text must match pattern/ }, 'MCP refuses it as HTTP does')
  const builtin = app.registry.builtins().find((bee) => bee.record.id === 'text-summarizer')
  t.equal(builtin?.validateInput(blank), false, 'the core\'s validator of the built-in Bee, which MCP and A2A use')

  const publishers = compileBodySchema({ type: 'object', properties: { text: { type: 'string', pattern: '\\S' } } })
  t.equal(publishers(blank), true, 'a publisher\'s \\S is RE2\'s, ASCII only, as docs/publishers.md says')
})

test('a refused body is validated again for every error only while it holds at most EVERY_ERROR_VALUES values', async (t) => {
  const validate = compileBodySchema({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, rest: { type: 'array' } } })
  const fields = (body: unknown) => { validate(body); return (validate.errors ?? []).map((error) => error.instancePath) }
  t.same(fields({ a: 1, b: 2 }), ['/a', '/b'])
  // The body itself, a, b, rest, and rest's items: the boundary is counted exactly.
  const filler = (values: number) => Array.from({ length: values - 4 }, () => 0)
  t.same(fields({ a: 1, b: 2, rest: filler(EVERY_ERROR_VALUES) }), ['/a', '/b'], 'at the limit: every error')
  t.same(fields({ a: 1, b: 2, rest: filler(EVERY_ERROR_VALUES + 1) }), ['/a'], 'past it: the first')
  t.same(fields({ a: 'x', b: 'y' }), [], 'a valid body has no errors left from before')
  t.equal(validate({ a: 'x', b: 'y' }), true)
})
