import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'

/** Publisher schemas are compiled strictly: an unknown keyword or a contradictory schema is refused. */
const strictAjv = addFormats.default(new Ajv({ strict: true, allErrors: false, keywords: ['example'] }))

const MAX_SCHEMA_BYTES = 64 * 1024
const MAX_DEPTH = 32

/** Annotation keywords OpenAPI 3.0 has no place for; dropping them changes no validation. */
const dropped = new Set(['$schema', '$id', '$comment', 'definitions', '$defs', 'examples'])

/** Draft-07 keywords that OpenAPI 3.0 cannot express and that have no faithful rewrite. */
const inexpressible = new Set([
  'if', 'then', 'else', 'patternProperties', 'dependencies', 'propertyNames', 'contains', 'additionalItems', 'contentMediaType', 'contentEncoding'
])

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
    if (!isObject(node) || !(part in node)) throw new SchemaRefused(`$ref "${ref}" points at nothing`)
    node = node[part] as Json
  }
  return node
}

/**
 * Rewrites a draft-07 schema (the subset Zod converters emit) into one that OpenAPI 3.0 and Ajv both
 * read the same way: local $refs are inlined, `const` becomes a one-value `enum`, `type: [T, "null"]`
 * becomes `nullable`, `examples` gives its first item as `example`. Anything with no faithful 3.0 form
 * (remote or recursive $refs, if/then/else, patternProperties, tuples, …) is refused with the reason.
 */
export function toOpenApiSchema (schema: unknown, where: string): JsonObject {
  if (!isObject(schema)) throw new SchemaRefused(`${where} must be a JSON Schema object`)
  if (JSON.stringify(schema).length > MAX_SCHEMA_BYTES) throw new SchemaRefused(`${where} is larger than ${MAX_SCHEMA_BYTES} bytes`)
  const root = schema

  const convert = (node: Json, path: string, depth: number, refs: string[]): Json => {
    if (depth > MAX_DEPTH) throw new SchemaRefused(`${where} is nested deeper than ${MAX_DEPTH} levels`)
    if (Array.isArray(node)) return node.map((item, i) => convert(item, `${path}/${i}`, depth + 1, refs))
    if (!isObject(node)) return node
    if (typeof node.$ref === 'string') {
      const ref = node.$ref
      if (refs.includes(ref)) throw new SchemaRefused(`${where}${path}: recursive $ref "${ref}" cannot be written in OpenAPI 3.0 inline`)
      return convert(resolveLocal(root, ref), path, depth + 1, [...refs, ref])
    }
    const out: JsonObject = {}
    for (const [key, value] of Object.entries(node)) {
      if (dropped.has(key)) continue
      if (inexpressible.has(key)) throw new SchemaRefused(`${where}${path}: "${key}" has no OpenAPI 3.0 equivalent`)
      if (key === 'items' && Array.isArray(value)) throw new SchemaRefused(`${where}${path}: tuple "items" arrays have no OpenAPI 3.0 equivalent`)
      if (key === 'properties' && isObject(value)) {
        out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, convert(sub, `${path}/properties/${name}`, depth + 1, refs)]))
      } else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(key)) {
        out[key] = convert(value, `${path}/${key}`, depth + 1, refs)
      } else {
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
  try {
    strictAjv.compile(converted)
  } catch (error) {
    throw new SchemaRefused(`${where} is not a valid JSON Schema: ${(error as Error).message}`)
  }
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
