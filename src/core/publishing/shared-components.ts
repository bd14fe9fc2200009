import type { OpenAPIV3 } from 'openapi-types'

/** The key of a response schema that names the response as shared (see refusal in src/http/refusals.ts). */
export const SHARED_RESPONSE = 'x-shared-response'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

type Component = OpenAPIV3.ResponseObject | OpenAPIV3.HeaderObject | OpenAPIV3.ParameterObject

/**
 * Things given under a name (a response's, a header's), counted first; then each given at least twice
 * alike is listed once under its name and replaced by a `$ref`. Under one name only the first such value is
 * listed: another (a remote Bee's rewritten response, a header another route describes otherwise) stays in place.
 */
class Shelf<T extends Component> {
  readonly listed: Record<string, T> = {}
  readonly #counts = new Map<string, Map<string, number>>()
  readonly #chosen = new Map<string, string>()
  constructor (readonly section: 'responses' | 'headers' | 'parameters') {}

  count (name: string, value: T): void {
    const texts = this.#counts.get(name) ?? new Map<string, number>()
    const text = JSON.stringify(value)
    texts.set(text, (texts.get(text) ?? 0) + 1)
    this.#counts.set(name, texts)
  }

  /** The `$ref` that replaces `value`, or `value` itself. */
  place (name: string, value: T): T | OpenAPIV3.ReferenceObject {
    const text = JSON.stringify(value)
    if (!this.#chosen.has(name) && (this.#counts.get(name)?.get(text) ?? 0) >= 2) {
      this.#chosen.set(name, text)
      this.listed[name] = value
    }
    return this.#chosen.get(name) === text ? { $ref: `#/components/${this.section}/${name}` } : value
  }
}

/**
 * Lists once, in components, what many operations give alike, and refers to it by `$ref` wherever it is
 * given: the responses the routes name as shared (refusals many routes give), and the header parameters and
 * response headers, under their header names. Something named like what is listed but not the same (a remote
 * Bee's rewritten responses, a header another route describes otherwise) stays in place.
 */
export function shareComponents (document: OpenAPIV3.Document): OpenAPIV3.Document {
  const responses = new Shelf<OpenAPIV3.ResponseObject>('responses')
  const headers = new Shelf<OpenAPIV3.HeaderObject>('headers')
  const parameters = new Shelf<OpenAPIV3.ParameterObject>('parameters')
  const operations = Object.values(document.paths)
    .flatMap((item) => METHODS.map((method) => item?.[method]).filter((operation) => operation !== undefined))
  // The names of shared responses are taken out first, so that what is compared is the response alone.
  const named = new Map<OpenAPIV3.ResponseObject, string>()
  for (const operation of operations) {
    for (const parameter of operation.parameters ?? []) if (!('$ref' in parameter) && parameter.in === 'header') parameters.count(parameter.name, parameter)
    for (const response of Object.values(operation.responses)) {
      if ('$ref' in response) continue
      for (const [name, header] of Object.entries(response.headers ?? {})) if (!('$ref' in header)) headers.count(name, header)
      const schema = response.content?.['application/json']?.schema as Record<string, unknown> | undefined
      const name = schema?.[SHARED_RESPONSE]
      if (typeof name !== 'string') continue
      delete schema?.[SHARED_RESPONSE]
      named.set(response, name)
      responses.count(name, response)
    }
  }
  for (const operation of operations) {
    operation.parameters = operation.parameters?.map((parameter) =>
      '$ref' in parameter || parameter.in !== 'header' ? parameter : parameters.place(parameter.name, parameter))
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
