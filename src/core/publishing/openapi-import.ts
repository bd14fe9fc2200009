import type SwaggerParser from '@apidevtools/swagger-parser'
import type { OpenAPIV3 } from 'openapi-types'
import type { Static } from 'typebox'
import { failure } from '../errors.js'
import type { Caller } from '../principal.js'
import type { ManagedBee } from '../schemas.js'
import type { EgressPolicy } from './egress.js'
import { beeIdOf, checkOf, chosen, type IdOptions, idProblem, type ImportCheck, pricingOf, publishAll, requirePublisher, schemaCheck } from './import-checks.js'
import { isObject, type Json, type JsonObject } from './json-schema.js'
import { openApiSchemaProblem, swaggerSchemaProblem } from './openapi-document-validation.js'
import { type RemoteBeeProxy, SendFailure } from './proxy.js'
import { WHOLE_BODY, WRAPPED_ANSWER, type ParameterPlace, type RequestMapping } from './request-mapping.js'
import { toInputSchema, toOutputSchema } from './schema-conversion.js'

/** 3.1's document types differ from 3.0's only where this module does not look (webhooks, schemas read as JSON). */
type Document = OpenAPIV3.Document
type Operation = OpenAPIV3.OperationObject
type Parameter = OpenAPIV3.ParameterObject
type Method = RequestMapping['method']

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** Where the document comes from: inline, or a URL fetched through the egress guard. */
export type ImportSource = { document: object } | { url: string }

/** A Bee an operation would become. */
export interface ImportCandidate {
  id: string
  name: string
  description: string
  operationId: string | null
  method: Method
  path: string
  inputSchema: JsonObject
  outputSchema: JsonObject
  mapping: RequestMapping
  checks: ImportCheck[]
  importable: boolean
}

/** What a preview or an apply is given. */
export interface ImportRequest {
  source: ImportSource
  /** The server to call, instead of the document's first one. */
  serverUrl?: string | undefined
  /** Prepended to every id made from an operation, so two APIs' `getItem`s do not collide. */
  idPrefix?: string | undefined
}

/** An operation to import, chosen by operationId or by method and path, with its price. */
export interface ChosenOperation {
  operationId?: string | undefined
  method?: string | undefined
  path?: string | undefined
  /** The Bee's id instead of the one made from the operation. */
  id?: string | undefined
  /** Micro-units of PRICE_CURRENCY per call; 0: free. */
  priceMicros: number
}

/** What an apply is given: the operations chosen, the upstream's credential, the Bees' category. */
export interface ImportApplication extends ImportRequest {
  operations: ChosenOperation[]
  credential?: string | undefined
  category?: string | undefined
}

export interface ImportOptions extends IdOptions {
  egress: Pick<EgressPolicy, 'check'>
  proxy: Pick<RemoteBeeProxy, 'fetchDocument'>
}

const FETCHED_NAME = 'fetched-openapi-document.yaml'

/** An id from an operationId or method and path. */
const idOf = (prefix: string, operation: Operation, method: string, path: string): string => beeIdOf(prefix, operation.operationId ?? `${method} ${path}`)

/** OpenAPI's schema annotations JSON Schema validators do not know; they change no validation. */
const ANNOTATIONS = new Set(['xml', 'externalDocs', 'discriminator'])

/**
 * A Schema Object as JSON Schema the publishing checks read: a copy without OpenAPI's own annotations and `x-`
 * extensions. The parser has inlined every $ref already; a circular one it left as `$ref`, which the conversion refuses.
 */
function jsonSchema (schema: unknown): Json {
  if (Array.isArray(schema)) return schema.map(jsonSchema)
  if (!isObject(schema)) return schema as Json
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-')) continue
    out[key] = key === 'properties' && isObject(value)
      ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, jsonSchema(sub)]))
      : key === 'enum' || key === 'example' || key === 'default' || key === 'const' ? value : jsonSchema(value)
  }
  return out
}

const isJsonMedia = (type: string) => /^application\/(?:[\w.+-]+\+)?json(?:;|$)/i.test(type.trim())
const jsonContent = (content: Record<string, OpenAPIV3.MediaTypeObject> | undefined) =>
  Object.entries(content ?? {}).find(([type]) => isJsonMedia(type))?.[1]

/** The first server of the operation, its path or the document, its variables at their defaults, resolved against the document's URL. */
function serverOf (document: Document, pathItem: OpenAPIV3.PathItemObject, operation: Operation, base: string | undefined): string | null {
  const server = [operation.servers, pathItem.servers, document.servers].find((list) => list !== undefined && list.length > 0)?.[0]
  const template = server?.url ?? '/'
  const url = template.replace(/\{([^}]+)\}/g, (_, name: string) => server?.variables?.[name]?.default ?? '')
  try {
    return new URL(url, base).href.replace(/\/+$/, '')
  } catch {
    return null
  }
}

/** Where the credential goes for this operation: its first security requirement Apiary can meet. */
function credentialOf (document: Document, operation: Operation): { place: RequestMapping['credential'], problem: string | null } {
  const requirements = operation.security ?? document.security ?? []
  if (requirements.length === 0 || requirements.some((requirement) => Object.keys(requirement).length === 0)) return { place: null, problem: null }
  const schemes = document.components?.securitySchemes ?? {}
  for (const requirement of requirements) {
    const names = Object.keys(requirement)
    if (names.length !== 1) continue
    const scheme = schemes[names[0] as string] as OpenAPIV3.SecuritySchemeObject | undefined
    if (scheme === undefined) continue
    if (scheme.type === 'apiKey' && (scheme.in === 'header' || scheme.in === 'query')) return { place: { in: scheme.in, name: scheme.name }, problem: null }
    if ((scheme.type === 'http' && scheme.scheme.toLowerCase() === 'bearer') || scheme.type === 'oauth2' || scheme.type === 'openIdConnect') {
      return { place: { in: 'bearer' }, problem: null }
    }
  }
  return { place: null, problem: 'the operation needs a credential other than an API key in a header or the query, or a bearer token' }
}

/** The operation's parameters: the path's, overridden by the operation's own of the same name and place. */
function parametersOf (pathItem: OpenAPIV3.PathItemObject, operation: Operation): Parameter[] {
  const merged = new Map<string, Parameter>()
  for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])] as Parameter[]) {
    merged.set(`${parameter.in}:${parameter.name}`, parameter)
  }
  return [...merged.values()]
}

/** A header's text may not break the header: no line breaks or NUL (a request with one is not sent, so its input is refused). */
const HEADER_TEXT = '^[^\\u0000\\r\\n]*$'

const headerSafe = (schema: JsonObject): JsonObject => {
  if (schema.type === 'string' && schema.pattern === undefined) return { ...schema, pattern: HEADER_TEXT }
  if (schema.type === 'array' && isObject(schema.items)) return { ...schema, items: headerSafe(schema.items) }
  return schema
}

/** Header parameters OpenAPI says are ignored: the request's own content negotiation and authorization. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization'])

interface Shaped {
  inputSchema: unknown
  outputSchema: unknown
  parameters: RequestMapping['parameters']
  body: RequestMapping['body']
  output: RequestMapping['output']
  problems: string[]
}

/** The operation's merged input schema, its output schema and how each maps, with what cannot be mapped. */
function shape (pathItem: OpenAPIV3.PathItemObject, operation: Operation): Shaped {
  const problems: string[] = []
  const properties: JsonObject = {}
  const required: string[] = []
  const parameters: RequestMapping['parameters'] = []
  for (const parameter of parametersOf(pathItem, operation)) {
    if (parameter.in === 'header' && IGNORED_HEADERS.has(parameter.name.toLowerCase())) continue
    if (parameter.in !== 'path' && parameter.in !== 'query' && parameter.in !== 'header') {
      problems.push(`parameter ${parameter.name} is in ${parameter.in}: only path, query and header parameters are mapped`)
      continue
    }
    const schema = jsonSchema(parameter.schema)
    if (!isObject(schema)) {
      problems.push(`parameter ${parameter.name} has no schema (one described by "content" is not mapped)`)
      continue
    }
    if (schema.type === 'object') problems.push(`parameter ${parameter.name} is an object: only scalars and arrays are mapped`)
    if (Object.hasOwn(properties, parameter.name)) {
      problems.push(`two parameters are named ${parameter.name}`)
      continue
    }
    const description = parameter.description
    const described = description !== undefined && schema.description === undefined ? { ...schema, description } : schema
    properties[parameter.name] = parameter.in === 'header' ? headerSafe(described) : described
    if (parameter.required === true || parameter.in === 'path') required.push(parameter.name)
    parameters.push({ name: parameter.name, in: parameter.in as ParameterPlace })
  }

  let body: RequestMapping['body'] = 'none'
  const requestBody = operation.requestBody as OpenAPIV3.RequestBodyObject | undefined
  if (requestBody !== undefined) {
    const media = jsonContent(requestBody.content)
    const schema = jsonSchema(media?.schema)
    if (media === undefined || !isObject(schema)) {
      problems.push('the request body is not JSON with a schema')
    } else {
      const bodyProperties = isObject(schema.properties) ? schema.properties : null
      const mergeable = schema.type === 'object' && bodyProperties !== null && schema.additionalProperties === undefined &&
        Object.keys(bodyProperties).every((name) => !Object.hasOwn(properties, name))
      if (mergeable) {
        body = 'properties'
        const bodyRequired = requestBody.required === true && Array.isArray(schema.required) ? schema.required : []
        for (const [name, sub] of Object.entries(bodyProperties)) {
          properties[name] = sub
          parameters.push({ name, in: 'body' })
          if (bodyRequired.includes(name)) required.push(name)
        }
      } else if (Object.hasOwn(properties, WHOLE_BODY)) {
        problems.push(`the request body cannot be merged with the parameters, and a parameter is named ${WHOLE_BODY}`)
      } else {
        body = 'whole'
        properties[WHOLE_BODY] = { ...schema, description: requestBody.description ?? 'The request body.' }
        if (requestBody.required === true) required.push(WHOLE_BODY)
      }
    }
  }

  const statuses = Object.keys(operation.responses ?? {}).filter((status) => /^2(?:\d\d|XX)$/.test(status)).sort()
  let outputSchema: Json = null
  let output: RequestMapping['output'] = 'object'
  for (const status of statuses) {
    const response = operation.responses[status] as OpenAPIV3.ResponseObject
    const media = jsonContent(response.content)
    if (media === undefined && response.content !== undefined && Object.keys(response.content).length > 0) continue
    const schema = jsonSchema(media?.schema)
    if (!isObject(schema)) {
      outputSchema = { type: 'object', description: response.description }
    } else if (schema.type === 'object') {
      outputSchema = schema
    } else {
      output = 'wrapped'
      outputSchema = { type: 'object', properties: { [WRAPPED_ANSWER]: schema }, description: `The upstream's answer, under "${WRAPPED_ANSWER}".` }
    }
    break
  }
  if (outputSchema === null) problems.push('the operation has no 2xx response that is JSON or empty')
  const inputSchema = { type: 'object', properties, ...(required.length === 0 ? {} : { required }) }
  return { inputSchema, outputSchema, parameters, body, output, problems }
}

function getOrSet<K, V> (map: Map<K, V>, key: K, make: () => V): V {
  if (!map.has(key)) map.set(key, make())
  return map.get(key) as V
}

/**
 * Turns an OpenAPI 3.0 or 3.1 document's operations into published Bees whose calls speak the upstream's own
 * language (see RequestMapping). A preview lists what each operation would become and the checks it passes; an
 * apply publishes the chosen ones, owned by the publisher, through the publishing use case.
 */
export class OpenApiImport {
  readonly #options: ImportOptions

  constructor (options: ImportOptions) {
    this.#options = options
  }

  /** What each operation of the document would become. */
  async preview (caller: Caller, request: ImportRequest): Promise<ImportCandidate[]> {
    const { document, base } = await this.#load(request.source)
    // Most operations share a server: each is checked (a DNS lookup) once per preview.
    const servers = new Map<string, Promise<string | null>>()
    const serverProblem = async (url: string) => await getOrSet(servers, url, async () =>
      (await this.#options.egress.check(url))?.replace(/^endpoint/, 'the server') ?? null)
    const candidates: ImportCandidate[] = []
    for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
      for (const method of METHODS) {
        const operation = pathItem?.[method] as Operation | undefined
        if (pathItem === undefined || operation === undefined) continue
        candidates.push(await this.#candidate(document, base, request, path, pathItem as OpenAPIV3.PathItemObject, method, operation, serverProblem))
      }
    }
    caller.log.info({ operations: candidates.length }, 'OpenAPI import previewed')
    return candidates
  }

  /** Publishes the chosen operations as Bees of the caller's (a publisher), each at its price; the credential sealed with each. */
  async apply (caller: Caller, request: ImportApplication): Promise<Array<Static<typeof ManagedBee>>> {
    requirePublisher(caller)
    const candidates = await this.preview(caller, request)
    const picked = chosen(request.operations, (choice) => {
      const named = choice.operationId ?? `${choice.method ?? '?'} ${choice.path ?? '?'}`
      const found = candidates.find((candidate) => choice.operationId !== undefined
        ? candidate.operationId === choice.operationId
        : candidate.method === choice.method?.toUpperCase() && candidate.path === choice.path)
      return { found, named, unknown: `The document has no operation ${named}.` }
    }, (candidate) => {
      const place = candidate.mapping.credential
      if (place === null || request.credential !== undefined) return []
      const where = place.in === 'bearer' ? 'a bearer token' : `an API key in the ${place.in} ${place.name}`
      return [{ name: 'credential', passed: false, message: `the operation needs ${where}: send it as credential` }]
    })
    return await publishAll(this.#options.publishing, caller, picked.map(({ candidate, priceMicros }) => ({
      id: candidate.id,
      name: candidate.name,
      description: candidate.description,
      category: request.category ?? 'api',
      endpoint: `${candidate.mapping.serverUrl}${candidate.mapping.path}`,
      inputSchema: candidate.inputSchema,
      outputSchema: candidate.outputSchema,
      pricing: pricingOf(priceMicros),
      upstream: { mapping: candidate.mapping, credential: candidate.mapping.credential === null ? null : request.credential ?? null }
    })))
  }

  async #candidate (document: Document, base: string | undefined, request: ImportRequest, path: string, pathItem: OpenAPIV3.PathItemObject,
    method: typeof METHODS[number], operation: Operation, serverProblem: (url: string) => Promise<string | null>): Promise<ImportCandidate> {
    const id = idOf(request.idPrefix ?? '', operation, method, path)
    const serverUrl = request.serverUrl?.replace(/\/+$/, '') ?? serverOf(document, pathItem, operation, base)
    const shaped = shape(pathItem, operation)
    const credential = credentialOf(document, operation)
    const input = schemaCheck('inputSchema', () => toInputSchema(shaped.inputSchema))
    const output = schemaCheck('outputSchema', () => toOutputSchema(shaped.outputSchema ?? {}))
    const mapping: RequestMapping = {
      method: method.toUpperCase() as Method,
      serverUrl: serverUrl ?? '',
      path,
      parameters: shaped.parameters,
      body: shaped.body,
      output: shaped.output,
      credential: credential.place
    }
    const checks: ImportCheck[] = [
      checkOf('id', await idProblem(this.#options, id, 'the operation')),
      checkOf('server', serverUrl === null ? 'the server URL is not an absolute URL: give serverUrl' : await serverProblem(serverUrl)),
      checkOf('parameters', shaped.problems.length === 0 ? null : shaped.problems.join('; ')),
      checkOf('credential', credential.problem),
      input.check,
      output.check
    ]
    const name = (operation.summary ?? operation.operationId ?? `${mapping.method} ${path}`).slice(0, 100)
    const description = (operation.description ?? operation.summary ?? `${mapping.method} ${path} of ${document.info.title}.`).slice(0, 4000)
    return {
      id,
      name: name === '' ? `${mapping.method} ${path}` : name,
      description: description === '' ? `${mapping.method} ${path} of ${document.info.title}.` : description,
      operationId: operation.operationId ?? null,
      method: mapping.method,
      path,
      inputSchema: input.schema ?? (shaped.inputSchema as JsonObject),
      outputSchema: output.schema ?? (isObject(shaped.outputSchema) ? shaped.outputSchema : {}),
      mapping,
      checks,
      importable: checks.every((check) => check.passed)
    }
  }

  /** The document, validated and dereferenced, with the URL its relative server URLs resolve against. */
  async #load (source: ImportSource): Promise<{ document: Document, base: string | undefined }> {
    if ('url' in source) {
      const problem = await this.#options.egress.check(source.url)
      if (problem !== null) throw failure('IMPORT_SOURCE_FORBIDDEN', problem.replace(/^endpoint/, 'the source URL'))
      let fetched: { status: number, text: string }
      try {
        fetched = await this.#options.proxy.fetchDocument(source.url)
      } catch (error) {
        if (!(error instanceof SendFailure)) throw error
        if (error.kind === 'forbidden') throw failure('IMPORT_SOURCE_FORBIDDEN', 'the source URL resolves to a forbidden address')
        const why = error.kind === 'too-large' ? 'it is too large' : error.kind === 'timeout' ? 'it did not answer in time' : 'it could not be reached'
        throw failure('IMPORT_SOURCE_UNREADABLE', `${source.url} could not be read: ${why}.`)
      }
      if (fetched.status < 200 || fetched.status > 299) throw failure('IMPORT_SOURCE_UNREADABLE', `${source.url} answered HTTP ${fetched.status}.`)
      // The text fetched above is the only file the parser reads: no resolver of its own reaches the network or the
      // disk. It is named as a YAML file (JSON is YAML), not by its URL: the parser rewrites a relative server against
      // a URL it read from, and drops the port as it does. serverOf resolves them here instead.
      const fetchedOnly = { order: 1, canRead: true, read: () => fetched.text }
      const parser = await swaggerParser()
      const parsed = await invalidUnless(async () => await parser.parse(FETCHED_NAME, { ...PARSING, resolve: { ...PARSING.resolve, fetched: fetchedOnly } }))
      return { document: await this.#validate(parsed), base: source.url }
    }
    return { document: await this.#validate(structuredClone(source.document)), base: undefined }
  }

  /**
   * The document checked against the OpenAPI 3.0 or 3.1 JSON Schema, then by swagger-parser's own rules (unique
   * operationIds, path parameters declared, …) and dereferenced. Its schema check is skipped there: it compiles the
   * specification's schema at every call (see openapi-document-validation.ts).
   */
  async #validate (given: object): Promise<Document> {
    const document = 'swagger' in given ? await upgradedSwagger(given) : given
    const problem = await openApiSchemaProblem(document)
    if (problem !== null) throw invalid(problem)
    const parser = await swaggerParser()
    const options = { ...PARSING, validate: { schema: false, spec: true } } as SwaggerParser.Options
    return await invalidUnless(async () => await parser.validate(document as never, options) as Document)
  }
}

/** Only the document given is read: no file, no URL (an external $ref stays as it is, and fails the schema checks). */
const PARSING = { resolve: { external: false, file: false, http: false }, dereference: { circular: 'ignore' as const } }

/** Imported with the first import, not at start: a start's cost that only imports need. */
const swaggerParser = async () => (await import('@apidevtools/swagger-parser')).default

const invalid = (why: string) => failure('IMPORT_DOCUMENT_INVALID', `The document is not a valid OpenAPI 3.0 or 3.1 document: ${why.slice(0, 1000)}`)

async function invalidUnless<T> (run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    throw invalid((error as Error).message)
  }
}

/**
 * A Swagger 2.0 document, checked against its specification's JSON Schema, then converted to OpenAPI 3.0 by Scalar's
 * upgrader (host, basePath and schemes become the server; body and formData parameters the request body; definitions
 * components) for the checks and the import that 3.0 documents get.
 */
async function upgradedSwagger (document: object): Promise<object> {
  const problem = await swaggerSchemaProblem(document)
  if (problem !== null) throw failure('IMPORT_DOCUMENT_INVALID', `The document is not a valid Swagger 2.0 document: ${problem.slice(0, 1000)}`)
  const { upgrade } = await import('@scalar/openapi-upgrader')
  return await invalidUnless(async () => upgrade(document as Record<string, unknown>, '3.0'))
}
