type Schema = Record<string, unknown>

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Placeholder strings for the formats a schema may name; each passes its format check. */
const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  email: 'user@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1'
}

function number (schema: Schema, integer: boolean): number {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema
  // Draft-07 writes an exclusive bound as a number, OpenAPI 3.0 as a flag beside minimum/maximum.
  const low = typeof exclusiveMinimum === 'number' ? exclusiveMinimum : typeof minimum === 'number' ? minimum : -Infinity
  const high = typeof exclusiveMaximum === 'number' ? exclusiveMaximum : typeof maximum === 'number' ? maximum : Infinity
  const lowOpen = typeof exclusiveMinimum === 'number' || exclusiveMinimum === true
  const highOpen = typeof exclusiveMaximum === 'number' || exclusiveMaximum === true
  const step = typeof multipleOf === 'number' && multipleOf > 0 ? multipleOf : integer ? 1 : undefined
  const fits = (value: number) => Number.isFinite(value) &&
    (lowOpen ? value > low : value >= low) && (highOpen ? value < high : value <= high) &&
    (step === undefined || Number.isInteger(value / step))
  const nearLow = step === undefined ? low + 1 : Math.floor(low / step) * step + step
  const candidates = [0, 1, low, nearLow, high, high - 1, (low + high) / 2]
  return candidates.find(fits) ?? (Number.isFinite(low) ? low : 0)
}

function string (schema: Schema): string {
  if (typeof schema.format === 'string' && schema.format in FORMAT_EXAMPLES) return FORMAT_EXAMPLES[schema.format] as string
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity
  return 'example'.padEnd(minLength, 'x').slice(0, maxLength)
}

/**
 * A value for a schema, to print in a call example: what the schema itself offers (example, examples,
 * default, const, the first enum value) or else a plain value within its bounds, with only the required
 * fields of objects. Patterns cannot be satisfied in general: the caller checks the value with the Bee's
 * own validator before calling it one that works.
 */
export function exampleValue (document: object, depth = 0): unknown {
  const schema = document as Schema
  if ('example' in schema) return schema.example
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if ('default' in schema) return schema.default
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const alternatives = schema.anyOf ?? schema.oneOf ?? schema.allOf
  if (Array.isArray(alternatives) && isSchema(alternatives[0])) return exampleValue(alternatives[0], depth + 1)
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  const type = types.find((candidate) => candidate !== 'null') ?? types[0]
  if (depth > 12) return null
  switch (type) {
    case 'string': return string(schema)
    case 'integer': return number(schema, true)
    case 'number': return number(schema, false)
    case 'boolean': return false
    case 'null': return null
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0
      const item = isSchema(schema.items) ? exampleValue(schema.items, depth + 1) : null
      return Array.from({ length: count }, () => item)
    }
    default: {
      const properties = isSchema(schema.properties) ? schema.properties : {}
      const required = Array.isArray(schema.required) ? schema.required.map(String) : []
      const value: Record<string, unknown> = {}
      for (const name of required) {
        const property = properties[name]
        value[name] = isSchema(property) ? exampleValue(property, depth + 1) : 'example'
      }
      return value
    }
  }
}
