import type { ValidateFunction } from 'ajv'

/** One Ajv error object, as Fastify reads them from a validator's `errors`. */
interface Issue { instancePath: string, schemaPath: string, keyword: string, params: Record<string, unknown>, message: string }

/** A scalar, or an array of scalars, with no number that is not finite. */
function finite (value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value)
  if (!Array.isArray(value)) return true
  for (const item of value) if (typeof item === 'number' && !Number.isFinite(item)) return false
  return true
}

const escapeKey = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1')

/**
 * Ajv's type coercion turns the query string `limit=Infinity` (and `1e400`, `-Infinity`) into the number
 * Infinity without checking it again, and then skips `minimum` and `maximum`, which only look at finite
 * numbers: the value passes every keyword. A path, query or header value here is at most an array of
 * scalars, so the coerced result is checked for non-finite numbers after Ajv has run.
 */
export function refuseNonFinite (validate: ValidateFunction): ValidateFunction {
  const checked = function (this: unknown, data: unknown) {
    if (!validate(data)) {
      checked.errors = validate.errors
      return false
    }
    // The hot path (every value finite) allocates nothing: the list of issues is made only for a bad value.
    let issues: Issue[] | null = null
    if (typeof data === 'object' && data !== null) {
      const values = data as Record<string, unknown>
      for (const key in values) {
        if (!finite(values[key])) {
          (issues ??= []).push({ instancePath: `/${escapeKey(key)}`, schemaPath: '#/type', keyword: 'type', params: { type: 'number' }, message: 'must be a finite number' })
        }
      }
    }
    checked.errors = issues
    return issues === null
  } as ValidateFunction
  return Object.assign(checked, { schema: validate.schema, schemaEnv: validate.schemaEnv })
}
