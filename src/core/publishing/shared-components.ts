import { STATUS_CODES } from 'node:http'
import type { OpenAPIV3 } from 'openapi-types'

/** The key of a response schema that names the response as shared (see refusal in src/http/refusals.ts). */
export const SHARED_RESPONSE = 'x-shared-response'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

type Component = OpenAPIV3.ResponseObject | OpenAPIV3.HeaderObject | OpenAPIV3.ParameterObject | OpenAPIV3.SchemaObject

/**
 * Things given under a name (a response's, a header's), counted first; then each given at least twice
 * alike is listed once under its name and replaced by a `$ref`. Under one name the first such value is listed
 * as it is named, each other one given twice alike (a Bee id and a wallet id, both `path.id`) with a number
 * (`path.id-2`); one given once (a remote Bee's rewritten response) stays in place.
 */
class Shelf<T extends Component> {
  readonly listed: Record<string, T> = {}
  readonly #counts = new Map<string, Map<string, number>>()
  /** The listed name of each value listed, by the name it was given under and its text. */
  readonly #chosen = new Map<string, Map<string, string>>()
  constructor (readonly section: 'responses' | 'headers' | 'parameters' | 'schemas') {}

  count (name: string, value: T): void {
    const texts = this.#counts.get(name) ?? new Map<string, number>()
    const text = JSON.stringify(value)
    texts.set(text, (texts.get(text) ?? 0) + 1)
    this.#counts.set(name, texts)
  }

  /** The `$ref` that replaces `value`, or `value` itself. */
  place (name: string, value: T): T | OpenAPIV3.ReferenceObject {
    const text = JSON.stringify(value)
    const chosen = this.#chosen.get(name) ?? new Map<string, string>()
    this.#chosen.set(name, chosen)
    if (!chosen.has(text) && (this.#counts.get(name)?.get(text) ?? 0) >= 2) {
      const listedAs = chosen.size === 0 ? name : `${name}-${chosen.size + 1}`
      chosen.set(text, listedAs)
      this.listed[listedAs] = value
    }
    const listedAs = chosen.get(text)
    return listedAs === undefined ? value : { $ref: `#/components/${this.section}/${listedAs}` }
  }
}

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null

/** Where values are data, not schemas: an example's `title` names no shape. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum'])

/** Every schema-like object below `value` (not `value` itself), each with a setter that replaces it where it is. */
function * nested (value: unknown): Generator<[Json, (next: unknown) => void]> {
  if (!isObject(value)) return
  for (const [key, inner] of Object.entries(value)) {
    if (!isObject(inner) || DATA_KEYS.has(key)) continue
    yield [inner, (next) => { (value as Json)[key] = next }]
    yield * nested(inner)
  }
}

/**
 * A JSON schema given a `title` is a shape with a name (a request body's pricing, an A2A message part): given alike
 * in several places, it is listed once in components/schemas under its title and referred to by `$ref`; given as
 * a shared shape already listed is (an inline copy of SubscriptionPlan), it refers to that. A title used for shapes
 * that differ names only the first that is given twice; the others stay in place. Titles are set where schemas are
 * declared, so request bodies, which Ajv compiles without the shared schemas, can share in the document too.
 */
function shareTitledSchemas (document: OpenAPIV3.Document): void {
  const listed = document.components?.schemas ?? {}
  const shelf = new Shelf<OpenAPIV3.SchemaObject>('schemas')
  const sameAsListed = (title: string, schema: Json) => {
    const component = listed[title]
    if (component === undefined || '$ref' in component) return false
    const { $id: _id, title: _title, ...rest } = component as Json
    return JSON.stringify(rest) === JSON.stringify(schema)
  }
  const roots = [document.paths, ...Object.values(listed)]
  const titled = (schema: Json): [string, Json] | null => {
    if (typeof schema.title !== 'string' || schema.$ref !== undefined) return null
    const { title, ...rest } = schema
    return [title, rest]
  }
  for (const root of roots) {
    for (const [schema] of nested(root)) {
      const found = titled(schema)
      if (found !== null && !sameAsListed(...found)) shelf.count(...found)
    }
  }
  for (const root of roots) {
    for (const [schema, replace] of nested(root)) {
      const found = titled(schema)
      if (found === null) continue
      if (sameAsListed(...found)) replace({ $ref: `#/components/schemas/${found[0]}` })
      else if (listed[found[0]] === undefined) {
        const placed = shelf.place(...found)
        if ('$ref' in placed) replace(placed)
      }
    }
  }
  document.components = { ...document.components, schemas: { ...listed, ...shelf.listed } }
}

/**
 * The name a response is shared under: the one its route gave it, in the schema of any of its media types; else,
 * for a response whose body is a shared shape and nothing else, the shape's name and the status (`Preparation.200`).
 */
function sharedNameOf (response: OpenAPIV3.ResponseObject, status: string): string | undefined {
  let name: string | undefined
  for (const media of Object.values(response.content ?? {})) {
    const schema = media.schema as Json | undefined
    if (typeof schema?.[SHARED_RESPONSE] !== 'string') continue
    name = schema[SHARED_RESPONSE]
    delete schema[SHARED_RESPONSE]
  }
  if (name !== undefined) return name
  // A response without a body (304 Not Modified) is its status alone.
  if (response.content === undefined) return (STATUS_CODES[Number(status)] ?? status).replace(/[^A-Za-z]/g, '')
  const shapes = new Set(Object.values(response.content ?? {}).map((media) => media.schema !== undefined && '$ref' in media.schema ? media.schema.$ref : null))
  const [shape] = shapes
  return shapes.size === 1 && typeof shape === 'string' && shape.startsWith('#/components/schemas/')
    ? `${shape.slice('#/components/schemas/'.length)}.${status}`
    : undefined
}

/**
 * Lists once, in components, what many operations give alike, and refers to it by `$ref` wherever it is
 * given: the responses the routes name as shared (refusals many routes give) and those that are a shared
 * shape alone, the parameters and response headers, under their names, and schemas with a title (see shareTitledSchemas).
 * Something named like what is listed but not the same (a remote Bee's rewritten responses, a header another
 * route describes otherwise) stays in place.
 */
export function shareComponents (document: OpenAPIV3.Document): OpenAPIV3.Document {
  shareTitledSchemas(document)
  const responses = new Shelf<OpenAPIV3.ResponseObject>('responses')
  const headers = new Shelf<OpenAPIV3.HeaderObject>('headers')
  const parameters = new Shelf<OpenAPIV3.ParameterObject>('parameters')
  // A header parameter is listed under its header name, a query or path parameter as `query.limit`, `path.id`.
  const parameterName = (parameter: OpenAPIV3.ParameterObject) => parameter.in === 'header' ? parameter.name : `${parameter.in}.${parameter.name}`
  const shareable = (parameter: OpenAPIV3.ParameterObject | OpenAPIV3.ReferenceObject): parameter is OpenAPIV3.ParameterObject => !('$ref' in parameter)
  const operations = Object.values(document.paths)
    .flatMap((item) => METHODS.map((method) => item?.[method]).filter((operation) => operation !== undefined))
  // The names of shared responses are taken out first, so that what is compared is the response alone.
  const named = new Map<OpenAPIV3.ResponseObject, string>()
  for (const operation of operations) {
    for (const parameter of operation.parameters ?? []) if (shareable(parameter)) parameters.count(parameterName(parameter), parameter)
    for (const [status, response] of Object.entries(operation.responses)) {
      if ('$ref' in response) continue
      for (const [name, header] of Object.entries(response.headers ?? {})) if (!('$ref' in header)) headers.count(name, header)
      const name = sharedNameOf(response, status)
      if (name === undefined) continue
      named.set(response, name)
      responses.count(name, response)
    }
  }
  for (const operation of operations) {
    operation.parameters = operation.parameters?.map((parameter) =>
      shareable(parameter) ? parameters.place(parameterName(parameter), parameter) : parameter)
    for (const [status, response] of Object.entries(operation.responses)) {
      if ('$ref' in response) continue
      // Placed as counted, headers inline; the listed response's headers become references just below.
      const name = named.get(response)
      if (name !== undefined) operation.responses[status] = responses.place(name, response)
      const { headers: given } = response
      for (const [name, header] of Object.entries(given ?? {})) if (given !== undefined && !('$ref' in header)) given[name] = headers.place(name, header)
    }
  }
  document.components = { ...document.components, responses: responses.listed, headers: headers.listed, parameters: parameters.listed }
  return document
}
