import type { OpenAPIV3 } from 'openapi-types'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** Drops a response schema's description where it only repeats its response's, which says it already. */
function dropEcho (response: OpenAPIV3.ResponseObject | OpenAPIV3.ReferenceObject): void {
  if ('$ref' in response) return
  for (const media of Object.values(response.content ?? {})) {
    const schema = media.schema
    if (schema !== undefined && !('$ref' in schema) && schema.description === response.description) delete schema.description
  }
}

/**
 * fastify-swagger gives each response the description of its schema, which keeps its own copy: every
 * inline response said the same sentence twice (about 6 KB of the document). The response's copy stays.
 */
export function dropEchoedDescriptions (document: OpenAPIV3.Document): OpenAPIV3.Document {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      for (const response of Object.values(item?.[method]?.responses ?? {})) dropEcho(response)
    }
  }
  return document
}
