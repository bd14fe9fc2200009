import type { OpenAPIV3 } from 'openapi-types'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

type Described = { description?: string, content?: Record<string, OpenAPIV3.MediaTypeObject> }

/** Drops the description of a JSON schema that repeats the description of the body or response holding it. */
function dropRepeated (holder: Described): void {
  const schema = holder.content?.['application/json']?.schema as { description?: string } | undefined
  if (schema?.description !== undefined && schema.description === holder.description) delete schema.description
}

/**
 * Says each body's and response's description once. @fastify/swagger takes a route schema's description
 * for the response (or request body) holding it and leaves it in the schema too; every refusal repeated its
 * sentence so, some 7 KB of the document. Works on a copy: @fastify/swagger hands out the same document each time.
 */
export function withoutRepeatedDescriptions (generated: OpenAPIV3.Document): OpenAPIV3.Document {
  const document = structuredClone(generated)
  for (const item of Object.values(document.paths)) {
    for (const operation of METHODS.map((method) => item?.[method])) {
      if (operation === undefined) continue
      if (operation.requestBody !== undefined && !('$ref' in operation.requestBody)) dropRepeated(operation.requestBody)
      for (const response of Object.values(operation.responses)) if (!('$ref' in response)) dropRepeated(response)
    }
  }
  return document
}
