import safeRegex from 'safe-regex2'
import { SAFE_FORMAT_NAMES, SAFE_FORMATS } from '../formats.js'
import { compileBodySchema } from '../validation.js'

const MAX_SCHEMA_BYTES = 64 * 1024
const MAX_DEPTH = 32
/**
 * Inlining a $ref copies its target at every use, so a small schema can expand exponentially
 * (definitions pointing several times at the level below). The expansion is counted while it is
 * built and refused once it passes these bounds (inlined, it must still fit in the 64 KB a published
 * schema may have): publishing stays fast, and what is stored, served in every listing and compiled
 * by Ajv at every load (a few ms per KB) stays small.
 */
const MAX_EXPANDED_NODES = 10_000
const MAX_EXPANDED_BYTES = MAX_SCHEMA_BYTES

/** Annotation keywords OpenAPI 3.0 has no place for; dropping them changes no validation. */
const dropped = new Set(['$schema', '$id', '$comment', 'definitions', '$defs', 'examples'])

/** Draft-07 keywords that OpenAPI 3.0 cannot express and that have no faithful rewrite. */
const inexpressible = new Set([
  'if', 'then', 'else', 'patternProperties', 'dependencies', 'propertyNames', 'contains', 'additionalItems', 'contentMediaType', 'contentEncoding'
])

/** Keywords whose value is a subschema, or an array of them. */
const subschemaKeywords = new Set([
  'items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'propertyNames', 'contains', 'additionalItems'
])
/** Keywords whose value maps names to subschemas. */
const schemaMapKeywords = new Set(['properties', 'patternProperties', 'dependencies', 'definitions', '$defs'])

export class SchemaRefused extends Error {}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

function resolveLocal (root: JsonObject, ref: string): Json {
  if (ref === '#') return root
  if (!ref.startsWith('#/')) throw new SchemaRefused(`$ref "${ref}" is not local: only references inside the schema ("#/…") are accepted`)
  let node: Json = root
  for (const raw of ref.slice(2).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    // Own properties only: "#/__proto__" or "#/constructor" would otherwise reach Object.prototype.
    if (!isObject(node) || !Object.hasOwn(node, part)) throw new SchemaRefused(`$ref "${ref}" points at nothing`)
    node = node[part] as Json
  }
  return node
}

/** The largest count a regex quantifier at `at` (`*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`) allows; 1 when there is none. */
function quantifierMax (pattern: string, at: number): number {
  const char = pattern[at]
  if (char === '*' || char === '+') return Infinity
  if (char === '?') return 1
  const braces = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at))
  if (braces === null) return 1
  if (braces[2] === undefined) return Number(braces[1])
  return braces[3] === '' ? Infinity : Number(braces[3])
}

/**
 * Walks a pattern's groups, calling `onClose` at each `)` with whether the group holds a `|` (at any
 * depth) and the index just after it, where its quantifier, if any, starts. Escapes and character
 * classes are skipped: a `(` or `|` in them is a plain character.
 */
function eachGroup (pattern: string, onClose: (alternates: boolean, after: number) => void): void {
  const open: boolean[] = []
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]
    if (char === '\\') {
      i++
    } else if (char === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++
    } else if (char === '(') {
      open.push(false)
    } else if (char === '|') {
      if (open.length > 0) open[open.length - 1] = true
    } else if (char === ')') {
      const alternates = open.pop() === true
      if (alternates && open.length > 0) open[open.length - 1] = true
      onClose(alternates, i + 1)
    }
  }
}

/**
 * Does the pattern repeat a group holding an alternation, as in `(a|a)*` or `(a|ab){20}`? When the
 * branches can match the same text, backtracking tries every way of splitting the input between
 * them: exponential, like nested quantifiers, yet safe-regex2 (which counts star height) lets it
 * through. Whether two branches overlap cannot be told without an engine, so any repeated
 * alternation is refused; a character class (`[ab]+`) says the same thing safely.
 */
function repeatsAlternation (pattern: string): boolean {
  let found = false
  eachGroup(pattern, (alternates, after) => { if (alternates && quantifierMax(pattern, after) > 1) found = true })
  return found
}

/**
 * The pattern with the `?` of optional groups removed, for safe-regex2. It counts `?` as a
 * repetition, so the everyday `\d+(\.\d+)?` would read as nested; but a group taken at most once
 * repeats nothing. A `?` inside a repeated group still counts (`(a?a?)+` is exponential).
 */
function withoutOptionalGroups (pattern: string): string {
  const drop = new Set<number>()
  eachGroup(pattern, (_alternates, after) => { if (pattern[after] === '?') drop.add(after) })
  return pattern.split('').filter((_unit, i) => !drop.has(i)).join('')
}

/**
 * A publisher's pattern runs against every caller's input, unauthenticated: one that backtracks
 * exponentially ("^(a+)+$" on "aaaa…!") would let anyone stall the event loop. Nested quantifiers
 * are caught by safe-regex2, repeated alternations by repeatsAlternation. safe-regex2 also refuses
 * what it cannot parse (lookbehind, for one): safe is what can be shown safe.
 */
function checkPattern (pattern: string, at: string): void {
  if (!safeRegex(withoutOptionalGroups(pattern)) || repeatsAlternation(pattern)) {
    throw new SchemaRefused(`${at}: pattern ${JSON.stringify(pattern)} may take exponential time to match: it nests quantifiers ` +
      '("(a+)+"), repeats an alternation ("(a|b)*"), or uses syntax the safety check cannot read (lookbehind). ' +
      'Write it without them, e.g. with a character class ("[ab]*"), or use "format" or "enum"')
  }
}

/**
 * Calls `visit` on the schema and each of its subschemas, with its path, following only the keywords
 * that hold subschemas: a "pattern" or "default" inside an enum or a default is data, not schema.
 */
function eachSchema (schema: Json, visit: (node: JsonObject, path: string, underProperties: boolean) => void,
  path = '', underProperties = false): void {
  if (Array.isArray(schema)) {
    schema.forEach((item, i) => eachSchema(item, visit, `${path}/${i}`))
    return
  }
  if (!isObject(schema)) return
  visit(schema, path, underProperties)
  for (const [key, value] of Object.entries(schema)) {
    if (subschemaKeywords.has(key)) eachSchema(value, visit, `${path}/${key}`)
    if (schemaMapKeywords.has(key) && isObject(value)) {
      for (const [name, sub] of Object.entries(value)) eachSchema(sub, visit, `${path}/${key}/${name}`, key === 'properties')
    }
  }
}

/** Checks every regular expression of a schema: each `pattern`, and the names of `patternProperties`. */
export function checkPatterns (schema: Json, where: string): void {
  eachSchema(schema, (node, path) => {
    if (typeof node.pattern === 'string') checkPattern(node.pattern, `${where}${path}`)
    if (isObject(node.patternProperties)) {
      for (const name of Object.keys(node.patternProperties)) checkPattern(name, `${where}${path}/patternProperties`)
    }
  })
}

/**
 * Ajv fills in a `default` only on a schema directly under `properties` (useDefaults). Strict mode
 * refuses some of the other places (a property inside an anyOf branch) but not all: a default on the
 * root, on an anyOf or oneOf branch itself, on `items` or on `additionalProperties` compiles, is shown
 * in the OpenAPI document, and is never applied. An agent would leave the field out and get no value.
 */
export function checkDefaults (schema: Json, where: string): void {
  eachSchema(schema, (node, path, underProperties) => {
    if (Object.hasOwn(node, 'default') && !underProperties) {
      throw new SchemaRefused(`${where}${path || ' (the root)'}: this "default" would never be applied; ` +
        'a default takes effect only on a property\'s own schema (under "properties"), so move it there or drop it')
    }
  })
}

/**
 * Every `format` must be one with a linear-time check (src/core/formats.ts): a format runs against every
 * caller's input before payment, and ajv-formats' own `url` took seconds on one crafted string.
 */
export function checkFormats (schema: Json, where: string): void {
  eachSchema(schema, (node, path) => {
    if (!Object.hasOwn(node, 'format')) return
    const format = node.format
    if (typeof format === 'string' && Object.hasOwn(SAFE_FORMATS, format)) return
    throw new SchemaRefused(`${where}${path}: format ${JSON.stringify(format)} is not supported: a format is checked on every ` +
      'call, so only formats with a check that runs in time linear in the input are offered: ' + SAFE_FORMAT_NAMES.join(', '))
  })
}

/**
 * Can the registry load this schema? It is compiled with the options of the Ajv that validates
 * execute bodies at load (src/core/validation.ts), so whatever they refuse (strict mode, a `default`
 * that useDefaults would ignore, …) is refused here, and whatever passes here loads. The compiled
 * function is dropped with its own Ajv: the registry compiles its own copy.
 */
export function checkLoadable (schema: JsonObject, where: string): void {
  checkPatterns(schema, where)
  checkFormats(schema, where)
  try {
    compileBodySchema(schema)
  } catch (error) {
    throw new SchemaRefused(`${where} is not a valid JSON Schema: ${(error as Error).message}`)
  }
}

/** Counts the expanded schema while it is built, and stops it as soon as it is too large. */
class ExpansionBudget {
  #nodes = 0
  #bytes = 0

  constructor (readonly where: string) {}

  /** Adds `nodes` schema objects or arrays and about `bytes` serialized bytes to the result. */
  spend (nodes: number, bytes: number): void {
    this.#nodes += nodes
    this.#bytes += bytes
    if (this.#nodes > MAX_EXPANDED_NODES) {
      throw new SchemaRefused(`${this.where} expands to more than ${MAX_EXPANDED_NODES} schema nodes once its $refs are inlined: reuse fewer definitions, or nest them less deeply`)
    }
    if (this.#bytes > MAX_EXPANDED_BYTES) this.tooLarge()
  }

  tooLarge (): never {
    throw new SchemaRefused(`${this.where} expands to more than ${MAX_EXPANDED_BYTES} bytes once its $refs are inlined: reuse fewer definitions, or nest them less deeply`)
  }
}

/**
 * Rewrites a draft-07 schema (the subset Zod converters emit) into one that OpenAPI 3.0 and Ajv both
 * read the same way: local $refs are inlined, `const` becomes a one-value `enum`, `type: [T, "null"]`
 * becomes `nullable`, `examples` gives its first item as `example`. Anything with no faithful 3.0 form
 * (remote or recursive $refs, if/then/else, patternProperties, tuples, …) is refused with the reason,
 * and so is anything the registry could not load (see checkLoadable).
 */
export function toOpenApiSchema (schema: unknown, where: string): JsonObject {
  if (!isObject(schema)) throw new SchemaRefused(`${where} must be a JSON Schema object`)
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) throw new SchemaRefused(`${where} is larger than ${MAX_SCHEMA_BYTES} bytes`)
  const root = schema
  const budget = new ExpansionBudget(where)

  const convert = (node: Json, path: string, depth: number, refs: string[]): Json => {
    if (depth > MAX_DEPTH) throw new SchemaRefused(`${where} is nested deeper than ${MAX_DEPTH} levels`)
    if (Array.isArray(node)) {
      budget.spend(1, 2)
      return node.map((item, i) => convert(item, `${path}/${i}`, depth + 1, refs))
    }
    if (!isObject(node)) return node
    if (typeof node.$ref === 'string') {
      const ref = node.$ref
      if (refs.includes(ref)) throw new SchemaRefused(`${where}${path}: recursive $ref "${ref}" cannot be written in OpenAPI 3.0 inline`)
      return convert(resolveLocal(root, ref), path, depth + 1, [...refs, ref])
    }
    budget.spend(1, 2)
    const out: JsonObject = {}
    for (const [key, value] of Object.entries(node)) {
      if (dropped.has(key)) continue
      if (inexpressible.has(key)) throw new SchemaRefused(`${where}${path}: "${key}" has no OpenAPI 3.0 equivalent`)
      if (key === 'items' && Array.isArray(value)) throw new SchemaRefused(`${where}${path}: tuple "items" arrays have no OpenAPI 3.0 equivalent`)
      budget.spend(0, key.length + 4)
      if (key === 'properties' && isObject(value)) {
        budget.spend(1, 2)
        out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => {
          budget.spend(0, name.length + 4)
          return [name, convert(sub, `${path}/properties/${name}`, depth + 1, refs)]
        }))
      } else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(key)) {
        out[key] = convert(value, `${path}/${key}`, depth + 1, refs)
      } else {
        // Copied as it is; a value reached through many $refs counts at every use.
        budget.spend(0, JSON.stringify(value).length)
        out[key] = value
      }
    }
    if ('const' in out) {
      out.enum = [out.const as Json]
      delete out.const
    }
    if (Array.isArray(out.type)) {
      const types = out.type.filter((type) => type !== 'null')
      if (types.length !== 1) throw new SchemaRefused(`${where}${path}: a list of types other than [T, "null"] has no OpenAPI 3.0 equivalent`)
      out.type = types[0] as Json
      if (types.length !== (node.type as Json[]).length) out.nullable = true
    } else if (out.type === 'null') {
      throw new SchemaRefused(`${where}${path}: type "null" alone has no OpenAPI 3.0 equivalent`)
    }
    if (Array.isArray(node.examples) && node.examples.length > 0 && !('example' in out)) out.example = node.examples[0] as Json
    return out
  }

  const converted = convert(root, '', 0, []) as JsonObject
  // The running count is an estimate; the bound holds for the exact size.
  if (JSON.stringify(converted).length > MAX_EXPANDED_BYTES) budget.tooLarge()
  // Publishing only: a stored Bee with such a default still loads, as it always did.
  checkDefaults(converted, where)
  checkLoadable(converted, where)
  return converted
}

/**
 * The OpenAPI 3.0 spelling of a converted schema: draft-07's numeric exclusive bounds become
 * `minimum` plus `exclusiveMinimum: true` (and the same for maximum). Nothing else differs.
 */
export function forOpenApiDocument (schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(forOpenApiDocument)
  if (!isObject(schema)) return schema
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'exclusiveMinimum' && typeof value === 'number') {
      out.minimum = value
      out.exclusiveMinimum = true
    } else if (key === 'exclusiveMaximum' && typeof value === 'number') {
      out.maximum = value
      out.exclusiveMaximum = true
    } else if (key === 'enum' || key === 'example' || key === 'default') {
      out[key] = value
    } else {
      out[key] = forOpenApiDocument(value)
    }
  }
  return out
}

/** An input schema must describe a JSON object body. */
export function toInputSchema (schema: unknown): JsonObject {
  const converted = toOpenApiSchema(schema, 'inputSchema')
  if (converted.type !== 'object') throw new SchemaRefused('inputSchema must have type "object": the execute body is a JSON object')
  return converted
}

/**
 * An output schema must describe a JSON object too: it is Honey's `result`, an object in the spec
 * and in every serializer, so a string, array or null result would reach callers garbled.
 */
export function toOutputSchema (schema: unknown): JsonObject {
  const converted = toOpenApiSchema(schema, 'outputSchema')
  if (converted.type !== 'object' || converted.nullable === true) {
    throw new SchemaRefused('outputSchema must have type "object" (and not be nullable): it describes Honey\'s result, which is always a JSON object')
  }
  return converted
}
