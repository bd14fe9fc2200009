import { isObject, type Json, type JsonObject } from './json-schema.js'

/** Keywords whose value is a subschema, or an array of them. */
const subschemaKeywords = new Set([
  'items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf', 'if', 'then', 'else', 'propertyNames', 'contains', 'additionalItems'
])
/** Keywords whose value maps names to subschemas. */
const schemaMapKeywords = new Set(['properties', 'patternProperties', 'dependencies', 'definitions', '$defs'])

/**
 * Calls `visit` on the schema and each of its subschemas, with its path, following only the keywords
 * that hold subschemas: a "pattern" or "default" inside an enum or a default is data, not schema.
 */
export function eachSchema (schema: Json, visit: (node: JsonObject, path: string, underProperties: boolean) => void,
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

/**
 * The schema with `transform` applied to each of its subschemas, innermost first; the keywords that
 * hold data (enum, default, example) are copied as they are.
 */
export function mapSchemas (schema: Json, transform: (node: JsonObject) => JsonObject): Json {
  if (Array.isArray(schema)) return schema.map((item) => mapSchemas(item, transform))
  if (!isObject(schema)) return schema
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (subschemaKeywords.has(key)) {
      out[key] = mapSchemas(value, transform)
    } else if (schemaMapKeywords.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, mapSchemas(sub, transform)]))
    } else {
      out[key] = value
    }
  }
  return transform(out)
}
