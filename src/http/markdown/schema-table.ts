import { cell, code } from './inline.js'

type Schema = Record<string, unknown>

interface Row { path: string, type: string, required: boolean, constraints: string[], description: string }

/** Published schemas are bounded in depth when they are published; this only keeps a table readable. */
const MAX_DEPTH = 12

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)
const json = (value: unknown) => code(JSON.stringify(value))

function typeOf (schema: Schema): string {
  const alternatives = schema.anyOf ?? schema.oneOf
  if (Array.isArray(alternatives)) return alternatives.filter(isSchema).map(typeOf).join(' or ')
  const types = Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : []
  let text = types.length === 0 ? 'any' : types.join(' or ')
  if (types.includes('array') && isSchema(schema.items)) text = text.replace('array', `array of ${typeOf(schema.items)}`)
  if (typeof schema.format === 'string') text += ` (${schema.format})`
  if (schema.nullable === true) text += ' or null'
  return text
}

/** The keywords that limit a value, each as `keyword value` (bounds as inequalities, which read at a glance). */
function constraintsOf (schema: Schema): string[] {
  const out: string[] = []
  const bound = (key: string, symbol: string, strictSymbol: string, strictKey: string) => {
    const value = schema[key]
    const strict = schema[strictKey]
    if (typeof strict === 'number') out.push(`${strictSymbol} ${strict}`)
    else if (typeof value === 'number') out.push(`${strict === true ? strictSymbol : symbol} ${value}`)
  }
  bound('minimum', '≥', '>', 'exclusiveMinimum')
  bound('maximum', '≤', '<', 'exclusiveMaximum')
  const counts: Array<[string, string]> = [
    ['minLength', 'min length'], ['maxLength', 'max length'], ['minItems', 'min items'], ['maxItems', 'max items'],
    ['minProperties', 'min fields'], ['maxProperties', 'max fields'], ['multipleOf', 'multiple of']
  ]
  for (const [key, label] of counts) if (typeof schema[key] === 'number') out.push(`${label} ${String(schema[key])}`)
  if (typeof schema.pattern === 'string') out.push(`pattern ${code(schema.pattern)}`)
  if (schema.uniqueItems === true) out.push('unique items')
  if (Array.isArray(schema.enum)) out.push(`one of ${schema.enum.map(json).join(', ')}`)
  if ('const' in schema) out.push(`always ${json(schema.const)}`)
  if ('default' in schema) out.push(`default ${json(schema.default)}`)
  if (schema.additionalProperties === false) out.push('no other fields')
  return out
}

function collect (schema: Schema, path: string, required: boolean, depth: number, rows: Row[]): void {
  rows.push({
    path,
    type: typeOf(schema),
    required,
    constraints: constraintsOf(schema),
    description: typeof schema.description === 'string' ? schema.description : ''
  })
  if (depth >= MAX_DEPTH) return
  const item = isSchema(schema.items) ? schema.items : undefined
  if (item !== undefined && isSchema(item.properties)) fields(item, `${path}[]`, depth + 1, rows)
  else if (isSchema(schema.properties)) fields(schema, path, depth + 1, rows)
}

function fields (schema: Schema, prefix: string, depth: number, rows: Row[]): void {
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
  for (const [name, property] of Object.entries(schema.properties as Schema)) {
    if (!isSchema(property)) continue
    collect(property, prefix === '' ? name : `${prefix}.${name}`, required.has(name), depth, rows)
  }
}

/**
 * A JSON Schema as a Markdown table, one row per field: nested objects are flattened to dotted paths
 * (`a.b`; items of an array of objects as `a[].b`), each with its type, whether its parent requires it,
 * its constraints and its description. A schema that is not an object of fields is one row, `(whole value)`.
 */
export function schemaTable (document: object): string {
  const schema = document as Schema
  const rows: Row[] = []
  if (isSchema(schema.properties)) fields(schema, '', 0, rows)
  else collect(schema, '(whole value)', true, 0, rows)
  if (rows.length === 0) return 'An object with no declared fields.'
  const lines = ['| Field | Type | Required | Constraints | Description |', '|---|---|---|---|---|']
  for (const row of rows) {
    lines.push(`| ${cell(code(row.path))} | ${cell(row.type)} | ${row.required ? 'yes' : 'no'} | ${cell(row.constraints.join('; '))} | ${cell(row.description)} |`)
  }
  return lines.join('\n')
}
