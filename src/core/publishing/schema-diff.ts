import { isObject, type Json, type JsonObject } from './json-schema.js'

/** One change of a Bee's schemas that breaks a caller written against the version before. */
export interface BreakingChange {
  /** Where, as a JSON pointer into the Bee's schemas, e.g. /inputSchema/properties/text. */
  field: string
  /** What changed, for the publisher. */
  reason: string
}

/** A Bee's versioned schemas, as stored (converted, `$ref`s inlined). */
export interface VersionedSchemas {
  inputSchema: JsonObject
  outputSchema: JsonObject
}

/** Input goes from the caller to the Bee: narrowing it refuses what callers send. Output goes back: widening it sends what they do not expect. */
type Direction = 'input' | 'output'

const JSON_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']

/** The JSON types a schema lets through; every one when it says none. `integer` is within `number`. */
function typesOf (schema: JsonObject): Set<string> {
  const declared = schema.type
  const types = new Set(typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared.filter((t): t is string => typeof t === 'string') : JSON_TYPES)
  if (schema.nullable === true) types.add('null')
  if (types.has('number')) types.add('integer')
  return types
}

/** The values a schema allows when it lists them (enum or const); null when any value of its types goes. */
function valuesOf (schema: JsonObject): Json[] | null {
  if (Array.isArray(schema.enum)) return schema.enum
  if (Object.hasOwn(schema, 'const')) return [schema.const as Json]
  return null
}

const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b)
const missing = (from: Json[], within: Json[]) => from.filter((value) => !within.some((other) => same(value, other)))
const listed = (values: Json[]) => values.map((value) => JSON.stringify(value)).join(', ')
const requiredOf = (schema: JsonObject) => new Set(Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === 'string') : [])
const propertiesOf = (schema: JsonObject): JsonObject => isObject(schema.properties) ? schema.properties : {}

/** Numeric bounds where a larger value allows less (a minimum) or more (a maximum). */
const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']

/**
 * Whether `after` allows less than `before` through one bound: a bound added, or moved toward fewer values.
 * (OpenAPI 3.0's boolean exclusiveMinimum/Maximum are left to their minimum/maximum.)
 */
function boundsNarrowed (before: JsonObject, after: JsonObject): string[] {
  const narrowed: string[] = []
  for (const [bounds, tighter] of [[LOWER_BOUNDS, (a: number, b: number) => a > b], [UPPER_BOUNDS, (a: number, b: number) => a < b]] as const) {
    for (const bound of bounds) {
      const [was, is] = [before[bound], after[bound]]
      if (typeof is !== 'number') continue
      if (typeof was !== 'number' || tighter(is, was)) narrowed.push(`${bound} ${typeof was === 'number' ? `${was} → ` : 'added: '}${is}`)
    }
  }
  if (typeof after.pattern === 'string' && after.pattern !== before.pattern) narrowed.push(`pattern ${typeof before.pattern === 'string' ? 'changed' : 'added'}: ${after.pattern}`)
  return narrowed
}

/** The breaking changes between two versions of one (sub)schema at `path`. */
function compare (before: JsonObject, after: JsonObject, path: string, direction: Direction, changes: BreakingChange[]): void {
  // Input: what callers sent must still be accepted. Output: what the Bee answers must still be what callers read.
  const [wider, narrower] = direction === 'input' ? [before, after] : [after, before]
  const lostTypes = [...typesOf(wider)].filter((type) => !typesOf(narrower).has(type))
  if (lostTypes.length > 0) {
    changes.push({ field: path, reason: direction === 'input' ? `type narrowed: ${lostTypes.join(', ')} no longer accepted` : `type widened: ${lostTypes.join(', ')} may now be answered` })
  }
  const [wideValues, narrowValues] = [valuesOf(wider), valuesOf(narrower)]
  if (narrowValues !== null) {
    const lost = wideValues === null ? null : missing(wideValues, narrowValues)
    if (lost === null) {
      changes.push({ field: path, reason: direction === 'input' ? `enum added: only ${listed(narrowValues)} accepted` : 'enum removed: any value may now be answered' })
    } else if (lost.length > 0) {
      changes.push({ field: path, reason: direction === 'input' ? `enum narrowed: ${listed(lost)} no longer accepted` : `enum widened: ${listed(lost)} may now be answered` })
    }
  }
  if (direction === 'input') {
    for (const bound of boundsNarrowed(before, after)) changes.push({ field: path, reason: `narrowed: ${bound}` })
    if (after.additionalProperties === false && before.additionalProperties !== false) changes.push({ field: path, reason: 'additional properties no longer accepted' })
  }

  const [beforeProperties, afterProperties] = [propertiesOf(before), propertiesOf(after)]
  const [beforeRequired, afterRequired] = [requiredOf(before), requiredOf(after)]
  for (const [name, schema] of Object.entries(beforeProperties)) {
    const next = afterProperties[name]
    const at = `${path}/properties/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`
    if (next === undefined) changes.push({ field: at, reason: 'property removed (or renamed)' })
    else if (isObject(schema) && isObject(next)) compare(schema, next, at, direction, changes)
  }
  if (direction === 'input') {
    for (const name of afterRequired) if (!beforeRequired.has(name)) changes.push({ field: `${path}/required`, reason: `"${name}" is newly required` })
  } else {
    for (const name of beforeRequired) if (!afterRequired.has(name)) changes.push({ field: `${path}/required`, reason: `"${name}" is no longer always answered` })
  }
  if (isObject(before.items) && isObject(after.items)) compare(before.items, after.items, `${path}/items`, direction, changes)
}

/**
 * What a new version of a Bee's schemas breaks for callers of the one before: a removed (or renamed) input or output
 * property, a newly required input, a narrowed input type, enum or bound, a widened output type or enum, an output
 * no longer required. Empty: the new version is compatible, and needs no new major. Keywords it does not know
 * (anyOf, say) are not compared.
 */
export function breakingChanges (before: VersionedSchemas, after: VersionedSchemas): BreakingChange[] {
  const changes: BreakingChange[] = []
  compare(before.inputSchema, after.inputSchema, '/inputSchema', 'input', changes)
  compare(before.outputSchema, after.outputSchema, '/outputSchema', 'output', changes)
  return changes
}
