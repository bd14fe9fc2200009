import type { OpenAPIV3 } from 'openapi-types'
import { executePath, type Registry } from '../core/registry.js'
import { BEE_ID_EXAMPLE } from '../core/schemas.js'
import { exampleInput } from './markdown/call-examples.js'

/** The JSON body of an operation, where its example goes. */
const jsonBody = (operation: OpenAPIV3.OperationObject | undefined) =>
  (operation?.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content['application/json']

/**
 * Gives each execute operation a body example that works as printed (Swagger UI's "Try it out" sends it): the
 * Bee's own example, or one built from its input schema when the schema accepts it; the generic operation,
 * that of the Bee its id example names. Examples a route already declares are kept.
 */
export function withCallExamples (document: OpenAPIV3.Document, registry: Registry): OpenAPIV3.Document {
  const set = (operation: OpenAPIV3.OperationObject | undefined, id: string) => {
    const bee = registry.get(id)
    const body = jsonBody(operation)
    if (bee === undefined || body === undefined || body.example !== undefined) return
    const { input, valid } = exampleInput(bee)
    if (valid) body.example = input
  }
  for (const bee of registry.all()) set(document.paths[executePath(bee.record.id)]?.post, bee.record.id)
  set(document.paths[executePath('{id}')]?.post, BEE_ID_EXAMPLE)
  return document
}
