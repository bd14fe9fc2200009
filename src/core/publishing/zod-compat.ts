import { z } from 'zod'
import { isObject, SchemaRefused, type Json, type JsonObject } from './json-schema.js'
import { eachSchema, mapSchemas } from './schema-walk.js'

/**
 * Keywords Zod's import reads only beside a `type`: on a node without one (an anyOf branch holding
 * just `required`, say) it builds an any-schema, and the constraint Ajv enforces would be lost.
 */
const typedKeywords = [
  'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'properties', 'required', 'additionalProperties', 'minProperties', 'maxProperties', 'items', 'minItems', 'maxItems', 'uniqueItems'
]

/** ajv-formats keywords Ajv enforces and Zod's import keeps as mere metadata. */
const unenforced = ['formatMinimum', 'formatMaximum', 'formatExclusiveMinimum', 'formatExclusiveMaximum']

/** Does `value` have one of the JSON Schema `types`, as Ajv tells them apart? */
function hasType (value: Json, types: Json[]): boolean {
  return types.some((type) => {
    if (type === 'integer') return Number.isInteger(value)
    if (type === 'number') return typeof value === 'number'
    if (type === 'object') return isObject(value)
    if (type === 'array') return Array.isArray(value)
    if (type === 'null') return value === null
    if (type === 'string') return typeof value === 'string'
    return type === 'boolean' && typeof value === 'boolean'
  })
}

/**
 * Zod compiles a `pattern` as `new RegExp(pattern)`, without the `u` flag Ajv uses, where `\p{L}`
 * means "p{L}" and `\u{41}` means 41 "u"s; a pattern JavaScript cannot read even with `u` (RE2's
 * `\z`, `(?i)`, `[[:alpha:]]`) would mean something else to Zod or nothing at all.
 */
function patternProblem (pattern: string): string | null {
  try {
    RegExp(pattern, 'u')
  } catch {
    return 'JavaScript cannot read it as a regular expression'
  }
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '\\') continue
    const escaped = pattern[++i]
    if (escaped === 'p' || escaped === 'P' || (escaped === 'u' && pattern[i + 1] === '{')) {
      return `"\\${escaped}${escaped === 'u' ? '{' : ''}…" needs the "u" flag, which Zod does not set: write the characters or a class instead`
    }
  }
  return null
}

/** Refuses what Zod's import would read differently from Ajv, at the first place it appears. */
function checkFaithful (schema: JsonObject, where: string): void {
  eachSchema(schema, (node, path) => {
    const at = `${where}${path}`
    const fail = (reason: string): never => { throw new SchemaRefused(`${at}: Zod (z.fromJSONSchema) would not read this schema as Apiary does: ${reason}`) }
    for (const keyword of unenforced) if (Object.hasOwn(node, keyword)) fail(`it ignores "${keyword}"`)
    if (isObject(node.not) && Object.keys(node.not).length > 0) fail('it supports "not" only as {"not": {}}')
    const values = Array.isArray(node.enum) ? node.enum : Object.hasOwn(node, 'const') ? [node.const as Json] : null
    const extra = typedKeywords.find((keyword) => Object.hasOwn(node, keyword))
    if (values !== null) {
      // Zod builds an enum from the values alone: every other constraint on the node is dropped.
      if (extra !== undefined) fail(`beside an enum or const it reads only the values, not "${extra}"`)
      if (node.type !== undefined) {
        const types = [...(Array.isArray(node.type) ? node.type : [node.type]), ...(node.nullable === true ? ['null'] : [])]
        const stray = values.find((value) => !hasType(value, types))
        if (stray !== undefined) fail(`it would accept the enum value ${JSON.stringify(stray)}, which "type" excludes`)
      }
    } else if (node.type === undefined && node.$ref === undefined && extra !== undefined) {
      fail(`it reads "${extra}" only beside a "type"; add one`)
    }
    if (typeof node.pattern === 'string') {
      const problem = patternProblem(node.pattern)
      if (problem !== null) fail(`pattern ${JSON.stringify(node.pattern)}: ${problem}`)
    }
  })
}

/**
 * OpenAPI 3.0's `nullable` as the draft-07 type union. Zod's own OpenAPI mode wraps the whole node in
 * `.nullable()`, so `{"enum": ["a"], "nullable": true}` would take null, which Ajv refuses.
 */
const withTypeUnions = (schema: JsonObject): Json => mapSchemas(schema, (node) => {
  const { nullable, ...rest } = node
  if (nullable === true && typeof rest.type === 'string') rest.type = [rest.type, 'null']
  return rest
})

/**
 * The Zod schema an agent framework gets from a Bee's stored schema with Zod 4's own import,
 * checked to accept and refuse what Apiary's validator does (bar the documented differences:
 * `format` semantics, see docs/publishers.md). Refuses, naming the part, what Zod cannot read or would read
 * differently. Each call uses a registry of its own: the global one keeps every `id` it sees and
 * would refuse a second schema reusing one.
 */
export function toZod (schema: JsonObject, where: string): z.ZodType {
  checkFaithful(schema, where)
  try {
    return z.fromJSONSchema(withTypeUnions(schema) as z.core.JSONSchema.JSONSchema, { defaultTarget: 'draft-7', registry: z.registry() })
  } catch (error) {
    throw new SchemaRefused(`${where} cannot be converted to Zod (z.fromJSONSchema): ${(error as Error).message}`)
  }
}

/** Refuses a schema an agent framework could not turn into Zod as it is meant (see toZod). */
export function checkZodConvertible (schema: JsonObject, where: string): void {
  toZod(schema, where)
}
