import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'

const common: Options = {
  useDefaults: true,
  allErrors: true,
  strict: true,
  // Ajv understands OpenAPI 3.0's `nullable`, so one schema serves validation and the document.
  keywords: ['example']
}

/**
 * Bodies are validated strictly: `{"text": 123}` is refused, never coerced to "123".
 * Additional properties are accepted and kept, as the spec asks.
 */
export const bodyAjv = addFormats.default(new Ajv({ ...common, coerceTypes: false, removeAdditional: false }))

/** Path, query and headers arrive as strings, so they are coerced to the declared types. */
export const stringAjv = addFormats.default(new Ajv({ ...common, coerceTypes: 'array', removeAdditional: false }))
