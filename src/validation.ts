import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'
import RE2 from 're2'

/** RE2 in the shape Ajv takes: a factory, with the source Ajv would emit for it in standalone code. */
function re2Engine () {
  return Object.assign((pattern: string, flags: string) => new RE2(pattern, flags), { code: 'require("re2")' })
}

const common: Options = {
  useDefaults: true,
  allErrors: true,
  strict: true,
  // Ajv understands OpenAPI 3.0's `nullable`, so one schema serves validation and the document.
  keywords: ['example'],
  // A `pattern` in a published Bee's schema runs against every caller's input. RE2 matches in time
  // linear in the input, so no pattern can make a call backtrack for minutes, as `^(.*a){20}$` did;
  // what RE2 cannot run (lookbehind, backreferences) fails to compile and is refused at publish.
  code: { regExp: re2Engine() }
}

/**
 * Bodies are validated strictly: `{"text": 123}` is refused, never coerced to "123".
 * Additional properties are accepted and kept, as the spec asks.
 */
export const bodyAjv = addFormats.default(new Ajv({ ...common, coerceTypes: false, removeAdditional: false }))

/** Path, query and headers arrive as strings, so they are coerced to the declared types. */
export const stringAjv = addFormats.default(new Ajv({ ...common, coerceTypes: 'array', removeAdditional: false }))
