import { isObject, SchemaRefused, type Json, type JsonObject } from './json-schema.js'
import { checkDefaults, checkLoadable } from './schema-checks.js'

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
