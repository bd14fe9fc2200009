import type { OpenAPIV3 } from 'openapi-types'
import type { ErrorStatus } from '../error-catalog.js'
import type { ErrorCodes, Registry, RegisteredBee } from '../registry.js'
import { executePath } from '../registered-bee.js'
import type { Json } from './json-schema.js'
import { forOpenApiDocument } from './openapi-document-schema.js'

type Document = OpenAPIV3.Document
type Operation = OpenAPIV3.OperationObject

const GENERIC_PATH = executePath('{id}')

/** The path of a Bee's own OpenAPI document. */
export const beeDocumentPath = (id: string) => `/api/bees/${id}/openapi.json`

/** The id in a Bee's own execute path (a built-in Bee's route); null for any other path, the generic one included. */
function ownExecuteId (path: string): string | null {
  const id = /^\/api\/bees\/([^/{}]+)\/execute$/.exec(path)?.[1]
  return id ?? null
}

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
 * The service's own document: the document generated from the routes (the service's operations, the built-in
 * Bees' typed execute paths and the one generic execute path), minus the paths of built-in Bees that are not
 * active. Published Bees are not in it, so its size does not grow with the catalog: each has a document of its own.
 */
export function serviceDocument (base: Document, registry: Registry): Document {
  const document = structuredClone(base)
  for (const path of Object.keys(document.paths)) {
    const id = ownExecuteId(path)
    if (id !== null && registry.builtin(id)?.record.status !== 'active') delete document.paths[path]
  }
  return document
}

/**
 * A published Bee's execute operation with its exact input and output schemas, built from the generic execute
 * operation, so errors and Honey read the same everywhere, each error status with the codes `codes` gives.
 */
function publishedOperation (generic: Operation, bee: RegisteredBee, codes: ErrorCodes): Operation {
  const { id, name, description, inputSchema, outputSchema } = bee.record
  const operation: Operation = structuredClone(generic)
  operation.operationId = `execute-${id}`
  operation.summary = `Execute ${name}`
  operation.description = description
  operation.security = bee.paid ? [{ walletToken: [] }] : []
  // Prefer and the 202 of a run are an async Bee's only (the generic operation has them for any Bee).
  const runs = bee.record.config.executionMode !== 'sync'
  operation.parameters = (operation.parameters ?? []).filter((parameter) => !('in' in parameter && (parameter.in === 'path' ||
    (!runs && parameter.in === 'header' && parameter.name === 'prefer'))))
  // The version this document describes: a client that sends it keeps calling that version after newer ones come.
  for (const parameter of operation.parameters) {
    if ('in' in parameter && parameter.in === 'header' && parameter.name === 'bee-version') parameter.example = bee.record.version
  }
  operation.requestBody = {
    required: true,
    content: { 'application/json': { schema: forOpenApiDocument(inputSchema as Json) as OpenAPIV3.SchemaObject } }
  }
  // Honey is the shared envelope and, second in its allOf, this Bee's result (see Honey in src/core/schemas.ts).
  const honey = (operation.responses['200'] as OpenAPIV3.ResponseObject).content?.['application/json']?.schema as OpenAPIV3.SchemaObject
  const own = honey.allOf?.[1] as OpenAPIV3.SchemaObject
  own.properties = { ...own.properties, result: forOpenApiDocument(outputSchema as Json) as OpenAPIV3.SchemaObject }
  if (bee.record.config.executionMode === 'stream') {
    (operation.responses['200'] as OpenAPIV3.ResponseObject).content = {
      ...(operation.responses['200'] as OpenAPIV3.ResponseObject).content,
      'text/event-stream': { schema: { type: 'string', description: 'With Accept: text/event-stream: data events (eventSchema), progress, then honey or error.' } }
    }
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    if (status === '200' || (status === '202' && runs)) continue
    const listed = codes[Number(status) as ErrorStatus]
    if (listed === undefined) delete operation.responses[status]
    else listCodes(response as OpenAPIV3.ResponseObject, listed)
  }
  return operation
}

/** Every `#/components/...` reference under `value`. */
function referencesIn (value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) referencesIn(item, found)
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.add(item)
      else referencesIn(item, found)
    }
  }
  return found
}

type Section = 'schemas' | 'responses' | 'headers' | 'parameters'

/** The components the paths refer to, directly or through other components, and no others. */
function reachableComponents (paths: OpenAPIV3.PathsObject, components: OpenAPIV3.ComponentsObject): OpenAPIV3.ComponentsObject {
  const kept: Partial<Record<Section, Record<string, unknown>>> = {}
  const pending = [...referencesIn(paths, new Set())]
  const seen = new Set(pending)
  for (let reference = pending.pop(); reference !== undefined; reference = pending.pop()) {
    const [, , section, name] = reference.split('/') as [string, string, Section, string]
    const value = components[section]?.[name]
    if (value === undefined) continue
    kept[section] = { ...kept[section], [name]: value }
    for (const next of referencesIn(value, new Set())) {
      if (!seen.has(next)) {
        seen.add(next)
        pending.push(next)
      }
    }
  }
  return kept as OpenAPIV3.ComponentsObject
}

/**
 * A complete OpenAPI 3.0 document for one Bee's execute call, for a client generator to turn into one typed
 * call: the Bee's own operation (a built-in Bee's route, or a published Bee's built from the generic one with its
 * exact schemas and error codes), with the components it refers to and the security scheme a paid call uses.
 * `finish` is what the service document goes through (examples, shared components), so both read alike.
 */
export function beeDocument (base: Document, bee: RegisteredBee, codes: ErrorCodes, finish: (document: Document) => Document): Document {
  const generic = base.paths[GENERIC_PATH]?.post
  if (generic === undefined) throw new Error(`the generated document has no ${GENERIC_PATH}`)
  const { id, name, description, status } = bee.record
  const path = executePath(id)
  const builtin = base.paths[path]?.post
  const operation = bee.remote || builtin === undefined ? publishedOperation(generic, bee, codes) : structuredClone(builtin)
  const document = finish({
    openapi: base.openapi,
    info: {
      title: name,
      version: bee.record.lastUpdated,
      description: `${description}\n\nOne operation of Apiary (status: ${status}): the Bee's execute call with its exact ` +
        'input and output schemas. The whole service is described at /openapi/openapi.json.',
      ...(base.info.license === undefined ? {} : { license: base.info.license })
    },
    ...(base.servers === undefined ? {} : { servers: base.servers }),
    tags: (base.tags ?? []).filter((tag) => tag.name === 'execute'),
    paths: { [path]: { post: operation } },
    components: structuredClone(base.components ?? {})
  })
  const { securitySchemes } = document.components ?? {}
  document.components = {
    ...reachableComponents(document.paths, document.components ?? {}),
    ...(bee.paid && securitySchemes?.walletToken !== undefined ? { securitySchemes: { walletToken: securitySchemes.walletToken } } : {})
  }
  return document
}
