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
  keywords: ['example']
}

/**
 * A `pattern` in a published Bee's schema runs against every caller's input. RE2 matches in time linear in the
 * input, so no pattern can make a call backtrack for minutes, as `^(.*a){20}$` did; what RE2 cannot run (lookbehind,
 * backreferences) fails to compile and is refused at publish.
 *
 * The service's own schemas (its routes', its doors' and the built-in Bees') keep V8's engine, Ajv's default: each
 * is reviewed code, every one of their patterns is shown linear in the input by test/core/validation.test.ts, and
 * they mean what ECMA-262's dialect, JSON Schema's, says to every client that reads them (RE2's `\s` is ASCII only).
 * RE2 copies each input to UTF-8 on every call: on one sentence, the built-in Bees' `\S` took 11 µs of a free
 * execute's 232 on RE2 and 1.5–2.3 µs on V8 (`npm run bench -- --only breakdown`, AMD EPYC host).
 */
const PUBLISHERS_PATTERNS: Options = { code: { regExp: re2Engine() } }

/**
 * Bodies are validated strictly: `{"text": 123}` is refused, never coerced to "123". Additional
 * properties are accepted and kept, as the spec asks. Validation stops at the first error: collecting
 * them all let a 2 MB body of 300,000 wrong items cost 1.1 s and a 23.8 MB answer. A small body that
 * fails is validated again for every error (see reportingEveryError).
 */
const bodyOptions: Options = { ...common, allErrors: false, coerceTypes: false, removeAdditional: false }
const everyErrorOptions: Options = { ...bodyOptions, allErrors: true }

/** The Ajv of the service's own routes and doors, compiled once at start. */
export const bodyAjv = addSafeFormats(new Ajv(bodyOptions))

/** The same, naming every error: for a small body that failed (reportingEveryError), compiled on the first such body. */
const everyErrorAjv = addSafeFormats(new Ajv(everyErrorOptions))

/**
 * Most values (objects, arrays and the values in them) a refused body may hold to be validated again for every error.
 * Ajv's cost of collecting every error grows with the errors, about 0.4 µs and 150 bytes each (AMD EPYC host: 1,000
 * wrong items 0.5 ms, 300,000 in a 2 MB body 133 ms and 44 MB of errors), so it is spent only on a body this small:
 * at most a few hundred µs, while a larger body is refused at its first error, as cheaply as before.
 */
export const EVERY_ERROR_VALUES = 1000

/** Whether a parsed JSON value holds at most `most` values, itself included; stops counting once past it. */
function holdsAtMost (value: unknown, most: number): boolean {
  const pending: unknown[] = [value]
  let counted = 1
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next !== 'object' || next === null) continue
    if (Array.isArray(next)) {
      counted += next.length
      if (counted > most) return false
      pending.push(...next)
      continue
    }
    for (const key in next) {
      if (++counted > most) return false
      pending.push((next as Record<string, unknown>)[key])
    }
  }
  return true
}

/**
 * A body validator that stops at the first error, and names every error of a small body it refused (at most
 * EVERY_ERROR_VALUES values): a caller fixes all its fields at once, while a huge hostile body costs what one error
 * costs. A body that passes runs the first validator alone.
 */
export function reportingEveryError (first: ValidateFunction, every: () => ValidateFunction): ValidateFunction {
  let everyError: ValidateFunction | undefined
  const validate = function (this: unknown, data: unknown) {
    if (first.call(this, data) as boolean) {
      validate.errors = null
      return true
    }
    validate.errors = first.errors
    if (holdsAtMost(data, EVERY_ERROR_VALUES)) {
      everyError ??= every()
      everyError.call(this, data)
      validate.errors = everyError.errors ?? first.errors
    }
    return false
  } as ValidateFunction
  return validate
}

/** A route's body validator: the service's own schema, on bodyAjv, naming every error of a small refused body. */
export function compileRouteBody (schema: AnySchema): ValidateFunction {
  return reportingEveryError(bodyAjv.compile(schema), () => everyErrorAjv.compile(schema))
}

/**
 * Path, query and headers arrive as strings, so they are coerced to the declared types. They are
 * small (the HTTP parser bounds them), so every error is reported.
 */
export const stringAjv = addSafeFormats(new Ajv({ ...common, allErrors: true, coerceTypes: 'array', removeAdditional: false }))

/** Whose schema is compiled: the service's own (a built-in Bee's) or a publisher's, whose patterns run on RE2. */
export type SchemaOrigin = 'service' | 'publisher'

/**
 * Compiles a Bee's body schema in an Ajv of its own. An Ajv never forgets what it compiled: besides
 * its cache (which removeSchema empties), every schema and its generated code stay referenced from
 * the instance's shared scope, so a publisher changing a schema in a loop grew the heap without
 * bound. Owned by the validator alone, the instance goes with it when the Bee is changed or removed.
 * A publisher's schema is first checked against draft-07 by bodyAjv, whose meta-schema validator is compiled
 * once (an Ajv compiling it anew would take 25 ms per Bee); the service's own are not (see checkBodySchema).
 */
export function compileBodySchema (schema: AnySchema, origin: SchemaOrigin = 'publisher'): ValidateFunction {
  if (origin === 'publisher') checkBodySchema(schema)
  const patterns = origin === 'publisher' ? PUBLISHERS_PATTERNS : {}
  const compile = (options: Options) => addSafeFormats(new Ajv({ ...options, ...patterns, meta: false, validateSchema: false })).compile(schema)
  return reportingEveryError(compile(bodyOptions), () => compile(everyErrorOptions))
}

/**
 * Throws when the schema is not valid draft-07: the cheap check, without compiling it. For a publisher's schemas: the
 * service's own are reviewed code, each shown valid draft-07 by test/core/validation.test.ts, and checking the
 * built-in Bees' at start compiled the meta-schema's validator first, 37 ms of the start's CPU on the AMD EPYC host.
 */
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
