import { isObject, type Json, type JsonObject } from '../../core/publishing/json-schema.js'

/** Keywords whose value is a subschema or an array of them; every other value is data (enum, default, example). */
const subschemaKeywords = new Set(['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'])

/**
 * A Bee schema in the dialect MCP tools speak. Bee schemas are draft-07 as Ajv and OpenAPI 3.0 read
 * them: `nullable: true` and `example` are OpenAPI's words, which a JSON Schema validator does not know
 * (Ajv in strict mode refuses them, a lenient one ignores `nullable` and so refuses the null it allows).
 * MCP reads a schema without `$schema` as 2020-12 (2025-11-25 and later; 2025-06-18 names no dialect),
 * so the result carries no `$schema`, and uses only keywords draft-07 and 2020-12 read the same way:
 * `nullable` becomes a type union with "null" and `example` becomes `examples`. Every other keyword a
 * Bee schema may hold (publishing refuses tuples, `$ref`s and draft-specific ones) means the same in both.
 */
export function toToolSchema (schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(toToolSchema)
  if (!isObject(schema)) return schema
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'example') continue
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, toToolSchema(sub)]))
    } else {
      out[key] = subschemaKeywords.has(key) ? toToolSchema(value) : value
    }
  }
  if (schema.nullable === true) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type as Json]
    out.type = types.includes('null') ? types : [...types, 'null']
  }
  if (Object.hasOwn(schema, 'example') && !Object.hasOwn(schema, 'examples')) out.examples = [schema.example as Json]
  return out
}
