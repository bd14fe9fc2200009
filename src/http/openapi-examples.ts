import { STATUS_CODES } from 'node:http'
import type { OpenAPIV3 } from 'openapi-types'
import type { Registry } from '../core/registry.js'
import { BEE_ID_EXAMPLE } from '../core/schemas.js'
import { exampleInput } from './markdown/call-examples.js'
import { exampleValue } from './markdown/example-value.js'

/** The JSON body of an operation, where its example goes. */
const jsonBody = (operation: OpenAPIV3.OperationObject | undefined) =>
  (operation?.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content['application/json']

const EXECUTE_PATH = /^\/api\/bees\/([^/]+)\/execute$/

/**
 * Gives each execute operation in the document a body example that works as printed (Swagger UI's "Try it
 * out" sends it, and a client can build its first call from it): the Bee's own example, or one built from its
 * input schema when the schema accepts it; the generic operation, that of the Bee its id example names.
 * Examples a route already declares are kept.
 */
export function withCallExamples (document: OpenAPIV3.Document, registry: Registry): OpenAPIV3.Document {
  for (const [path, item] of Object.entries(document.paths)) {
    const id = EXECUTE_PATH.exec(path)?.[1]
    if (id === undefined) continue
    // A published Bee's own document is made right after its lookup, so it is loaded.
    const bee = registry.loaded(id === '{id}' ? BEE_ID_EXAMPLE : id)
    const body = jsonBody(item?.post)
    if (bee === undefined || body === undefined || body.example !== undefined) continue
    const { input, valid } = exampleInput(bee)
    if (valid) body.example = input
  }
  return document
}

type Schema = Record<string, unknown>
const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The schema with its `$ref`s replaced by what they name and its `allOf` parts merged into one (an error body and
 * the `code` enum of its operation become one object whose `code` is one of those codes), as deep as an example
 * reaches.
 */
function resolved (document: OpenAPIV3.Document, schema: unknown, depth = 0): unknown {
  if (!isSchema(schema) || depth > 12) return schema
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop() ?? ''
    return resolved(document, document.components?.schemas?.[name], depth + 1)
  }
  const out: Schema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'allOf' && Array.isArray(value)) continue
    if (key === 'properties' && isSchema(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, resolved(document, property, depth + 1)]))
    } else if ((key === 'items' || key === 'additionalProperties') && isSchema(value)) {
      out[key] = resolved(document, value, depth + 1)
    } else if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value)) {
      out[key] = value.map((part) => resolved(document, part, depth + 1))
    } else {
      out[key] = value
    }
  }
  const id = patternExample(out)
  if (id !== undefined) out.example = id
  if (!Array.isArray(schema.allOf)) return out
  // Parts merge in order; a property named by several parts keeps what each says of it (type from one, enum from another).
  return schema.allOf.map((part) => resolved(document, part, depth + 1)).filter(isSchema).reduce<Schema>((merged, part) => {
    const properties: Schema = { ...(merged.properties as Schema | undefined) }
    for (const [name, property] of Object.entries((part.properties as Schema | undefined) ?? {})) {
      properties[name] = { ...(properties[name] as Schema | undefined), ...(property as Schema) }
    }
    const required = [...new Set([...(merged.required as string[] | undefined) ?? [], ...(part.required as string[] | undefined) ?? []])]
    // A part's own example describes the part, not the whole.
    const { example: _partExample, ...rest } = part
    return { ...merged, ...rest, properties, required }
  }, out)
}

/** Characters an id example is drawn from, in this order: it reads as random, and is the same in every document. */
const ID_CHARACTERS = '7Hq2mZ0xK4rB9sLd3VtW8yNc1Pf6gJ5eaQ-u_'

/**
 * An example for a string with a pattern: an id whose pattern is a prefix and a run of one character class
 * (`^wal_[A-Za-z0-9_-]{1,64}$`), or a URL where the pattern takes one.
 */
function patternExample (schema: Schema): string | undefined {
  if (schema.example !== undefined || typeof schema.pattern !== 'string') return undefined
  const shape = /^\^([a-z]+_)\[([^\]]+)\]\{(\d+)(?:,(\d+))?\}\$$/.exec(schema.pattern)
  if (shape === null) return ['https://example.com/', 'example'].find((candidate) => new RegExp(schema.pattern as string).test(candidate))
  const allowed = new RegExp(`^[${shape[2] ?? ''}]$`)
  const pool = [...ID_CHARACTERS].filter((character) => allowed.test(character))
  const length = Math.max(Number(shape[3]), Math.min(22, Number(shape[4] ?? shape[3])))
  if (pool.length === 0) return undefined
  return (shape[1] ?? '') + Array.from({ length }, (_, i) => pool[i % pool.length]).join('')
}

/** An error body's example speaks like the service: `error` is the status text, and `message` names the code. */
function asServiceWouldSay (example: unknown, status: string): unknown {
  if (!isSchema(example) || typeof example.code !== 'string' || typeof example.error !== 'string') return example
  return { ...example, error: STATUS_CODES[Number(status)] ?? example.error }
}

function exampleFor (document: OpenAPIV3.Document, response: OpenAPIV3.ResponseObject, status: string) {
  for (const media of Object.values(response.content ?? {})) {
    if (media.example !== undefined || media.examples !== undefined || media.schema === undefined) continue
    // A shared shape (a Bee, a wallet) carries its example once, in components/schemas, for every answer naming it.
    // So does a refusal: its body is the shared error shape (allOf's first part) narrowed to the operation's codes.
    const named = '$ref' in media.schema ? media.schema : media.schema.allOf?.[0]
    const shared = named !== undefined && '$ref' in named ? document.components?.schemas?.[named.$ref.split('/').pop() ?? ''] : undefined
    if (shared !== undefined && !('$ref' in shared)) {
      shared.example ??= asServiceWouldSay(exampleValue(resolved(document, shared) as object), status)
      continue
    }
    media.example = asServiceWouldSay(exampleValue(resolved(document, media.schema) as object), status)
  }
}

/**
 * Gives every response that carries a body an example (on its shared schema when it names one), built from its
 * schema where no route declared one: what the
 * schema's own fields offer (their example, default or first enum value), else a plain value within its bounds.
 * Runs before the shared responses are moved to components/responses, while each response still has its status.
 */
export function withResponseExamples (document: OpenAPIV3.Document): OpenAPIV3.Document {
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head'] as const) {
      for (const [status, response] of Object.entries(item?.[method]?.responses ?? {})) {
        if (!('$ref' in response)) exampleFor(document, response, status)
      }
    }
  }
  return document
}
