import { Ajv, type AnySchema, type Options, type ValidateFunction } from 'ajv'
import RE2 from 're2'
import { addSafeFormats } from './formats.js'

/** RE2 in the shape Ajv takes: a factory, with the source Ajv would emit for it in standalone code. */
function re2Engine () {
  return Object.assign((pattern: string, flags: string) => new RE2(pattern, flags), { code: 'require("re2")' })
}

const common: Options = {
  useDefaults: true,
  strict: true,
  // Ajv understands OpenAPI 3.0's `nullable`, so one schema serves validation and the document.
  keywords: ['example'],
  // A `pattern` in a published Bee's schema runs against every caller's input. RE2 matches in time
  // linear in the input, so no pattern can make a call backtrack for minutes, as `^(.*a){20}$` did;
  // what RE2 cannot run (lookbehind, backreferences) fails to compile and is refused at publish.
  code: { regExp: re2Engine() }
}

/**
 * Bodies are validated strictly: `{"text": 123}` is refused, never coerced to "123". Additional
 * properties are accepted and kept, as the spec asks. Validation stops at the first error: collecting
 * them all let a 2 MB body of 300,000 wrong items cost 1.1 s and a 23.8 MB answer.
 */
const bodyOptions: Options = { ...common, allErrors: false, coerceTypes: false, removeAdditional: false }

/** The Ajv of the service's own routes, compiled once at start. */
export const bodyAjv = addSafeFormats(new Ajv(bodyOptions))

/**
 * Path, query and headers arrive as strings, so they are coerced to the declared types. They are
 * small (the HTTP parser bounds them), so every error is reported.
 */
export const stringAjv = addSafeFormats(new Ajv({ ...common, allErrors: true, coerceTypes: 'array', removeAdditional: false }))

/**
 * Compiles a Bee's body schema in an Ajv of its own. An Ajv never forgets what it compiled: besides
 * its cache (which removeSchema empties), every schema and its generated code stay referenced from
 * the instance's shared scope, so a publisher changing a schema in a loop grew the heap without
 * bound. Owned by the validator alone, the instance goes with it when the Bee is changed or removed.
 * The schema is first checked against draft-07 by bodyAjv, whose meta-schema validator is compiled
 * once (an Ajv compiling it anew would take 25 ms per Bee).
 */
export function compileBodySchema (schema: AnySchema): ValidateFunction {
  checkBodySchema(schema)
  return addSafeFormats(new Ajv({ ...bodyOptions, meta: false, validateSchema: false })).compile(schema)
}

/** Throws when the schema is not valid draft-07: the cheap check, without compiling it. */
export function checkBodySchema (schema: AnySchema): void {
  if (!bodyAjv.validateSchema(schema)) throw new Error(`schema is invalid: ${bodyAjv.errorsText(bodyAjv.errors)}`)
}

/**
 * A validator compiled on its first use instead of at start. Route schemas: the ~150 validators (every
 * status of every route) took about a quarter of a cold start, and most are not needed in an instance's
 * first seconds; they are static and every route is exercised by the tests, so a broken one is still
 * found before it ships. Bee schemas: an instance compiles only the Bees it serves, not the catalog.
 */
export function lazyValidator (compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const validate = function (this: unknown, data: unknown) {
    compiled ??= compile()
    const valid = compiled.call(this, data) as boolean
    // Fastify reads a failed validation's errors from the function it was given.
    validate.errors = compiled.errors
    return valid
  } as ValidateFunction
  return validate
}
