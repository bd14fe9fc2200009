import { isObject, type Json, type JsonObject } from './json-schema.js'

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
