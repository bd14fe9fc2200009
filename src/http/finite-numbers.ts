import type { ValidateFunction } from 'ajv'

/** One Ajv error object, as Fastify reads them from a validator's `errors`. */
interface Issue { instancePath: string, schemaPath: string, keyword: string, params: Record<string, unknown>, message: string }

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
    const issues: Issue[] = []
    if (typeof data === 'object' && data !== null) {
      for (const [key, value] of Object.entries(data)) {
        const values: unknown[] = Array.isArray(value) ? value : [value]
        if (values.some((item) => typeof item === 'number' && !Number.isFinite(item))) {
          issues.push({ instancePath: `/${escapeKey(key)}`, schemaPath: '#/type', keyword: 'type', params: { type: 'number' }, message: 'must be a finite number' })
        }
      }
    }
    checked.errors = issues.length === 0 ? null : issues
    return issues.length === 0
  } as ValidateFunction
  return Object.assign(checked, { schema: validate.schema, schemaEnv: validate.schemaEnv })
}
