import type { OpenAPIV3 } from 'openapi-types'
import type { ErrorCodes, Registry, RegisteredBee } from '../registry.js'
import { executePath } from '../registry.js'
import type { Json } from './json-schema.js'
import { forOpenApiDocument } from './openapi-document-schema.js'

type Document = OpenAPIV3.Document
type Operation = OpenAPIV3.OperationObject

const GENERIC_PATH = '/api/bees/{id}/execute'

/**
 * Lists `codes` as what an error response can carry: the enum of `code` in its schema, which is the
 * shared error body and that enum (see refusal in src/http/refusals.ts).
 */
function listCodes (response: OpenAPIV3.ResponseObject, codes: readonly string[]): void {
  const schema = response.content?.['application/json']?.schema as OpenAPIV3.SchemaObject
  const code = (schema.allOf?.[1] as OpenAPIV3.SchemaObject).properties?.code as OpenAPIV3.SchemaObject
  code.enum = [...codes]
}

/**
 * The OpenAPI document of the registry as it is now: the document generated from the routes, plus
 * one execute path per active published Bee with its exact input and output schemas (built from the
 * generic execute operation, so errors and Honey read the same everywhere, each error status with the
 * codes `errorCodesOf` gives for the Bee), minus the paths of built-in Bees that are not active.
 */
export function registryDocument (base: Document, registry: Registry, errorCodesOf: (bee: RegisteredBee) => ErrorCodes): Document {
  const document = structuredClone(base)
  const generic = base.paths[GENERIC_PATH]?.post
  if (generic === undefined) throw new Error(`the generated document has no ${GENERIC_PATH}`)
  for (const bee of registry.all()) {
    const { id, name, description, status, inputSchema, outputSchema } = bee.record
    const path = executePath(id)
    if (status !== 'active') {
      delete document.paths[path]
      continue
    }
    if (!bee.remote) continue
    const operation: Operation = structuredClone(generic)
    operation.operationId = `execute-${id}`
    operation.summary = `Execute ${name}`
    operation.description = description
    operation.security = bee.paid ? [{ walletToken: [] }] : []
    operation.parameters = (operation.parameters ?? []).filter((parameter) => !('in' in parameter && parameter.in === 'path'))
    operation.requestBody = {
      required: true,
      content: { 'application/json': { schema: forOpenApiDocument(inputSchema as Json) as OpenAPIV3.SchemaObject } }
    }
    // Honey is the shared envelope and, second in its allOf, this Bee's result (see Honey in src/core/schemas.ts).
    const honey = (operation.responses['200'] as OpenAPIV3.ResponseObject).content?.['application/json']?.schema as OpenAPIV3.SchemaObject
    const own = honey.allOf?.[1] as OpenAPIV3.SchemaObject
    own.properties = { ...own.properties, result: forOpenApiDocument(outputSchema as Json) as OpenAPIV3.SchemaObject }
    const codes = errorCodesOf(bee)
    for (const [status, response] of Object.entries(operation.responses)) {
      if (status === '200') continue
      const listed = codes[Number(status)]
      if (listed === undefined) delete operation.responses[status]
      else listCodes(response as OpenAPIV3.ResponseObject, listed)
    }
    document.paths[path] = { post: operation }
  }
  return document
}
