import type { OpenAPIV3 } from 'openapi-types'
import type { Registry } from '../core/registry.js'
import { BEE_ID_EXAMPLE } from '../core/schemas.js'
import { exampleInput } from './markdown/call-examples.js'

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
    const bee = registry.get(id === '{id}' ? BEE_ID_EXAMPLE : id)
    const body = jsonBody(item?.post)
    if (bee === undefined || body === undefined || body.example !== undefined) continue
    const { input, valid } = exampleInput(bee)
    if (valid) body.example = input
  }
  return document
}
