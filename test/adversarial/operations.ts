import fc from 'fast-check'
import type { OpenAPIV3 } from 'openapi-types'
import { body, headerText, pathParameter, queryValue, type Body, type Schema } from './arbitraries.js'
import type { RawRequest } from './http.js'
import type { Target } from './target.js'

export interface Operation {
  method: string
  /** The path template of the document, e.g. /api/wallets/{id}. */
  template: string
  operation: OpenAPIV3.OperationObject
  /** method and template, for reports. */
  label: string
}

/** Statuses the operation declares. */
export const declaredStatuses = (operation: Operation) => Object.keys(operation.operation.responses ?? {})

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/**
 * Every operation of the document, reads and executes first: the operations that change state
 * (publishing, admin) run last, so a Bee or wallet they retire does not take depth from the others.
 */
export function operationsOf (document: OpenAPIV3.Document): Operation[] {
  const found: Operation[] = []
  for (const [template, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item?.[method]
      if (operation !== undefined) found.push({ method: method.toUpperCase(), template, operation, label: `${method.toUpperCase()} ${template}` })
    }
  }
  const changesState = (operation: Operation) => operation.method !== 'GET' && !operation.template.endsWith('/execute')
  return [...found.filter((operation) => !changesState(operation)), ...found.filter(changesState)]
}

/** A generated request with a short description of its ingredients. */
export interface FuzzCase {
  request: RawRequest
  description: string
}

function resolved (document: OpenAPIV3.Document, schema: unknown): Schema | undefined {
  const reference = (schema as { $ref?: string } | undefined)?.$ref
  if (reference === undefined) return schema as Schema | undefined
  const name = reference.replace('#/components/schemas/', '')
  return document.components?.schemas?.[name] as Schema | undefined
}

/** Ids worth aiming at: real ones the actors own or not, built-ins, and ids nothing has. */
function usefulIds (target: Target, operation: Operation): string[] {
  if (operation.template.startsWith('/api/wallets/')) return [target.spare.id, 'wal_AAAAAAAAAAAAAAAAAAAAAA']
  if (operation.template === '/api/bees/{id}/execute') return ['fuzz-free', 'fuzz-paid', 'text-summarizer', 'sentiment-analyzer', 'weather-sensor', 'no-such-bee']
  if (operation.method === 'GET') return ['fuzz-free', 'text-summarizer', 'other-bee', 'no-such-bee']
  // Changes aim at the spare Bee, at someone else's, and at a built-in: never at the Bees the executes use.
  return ['fuzz-spare', 'other-bee', 'text-summarizer', 'no-such-bee']
}

/** Authorization and wallet headers for the operation's security: mostly the right credential, often a wrong one. */
function credentials (target: Target, operation: Operation): fc.Arbitrary<Record<string, string>> {
  const schemes = new Set((operation.operation.security ?? []).flatMap((requirement) => Object.keys(requirement)))
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const wallet = (token: string) => ({ 'x-registry-wallet-token': token })
  const malformed = fc.constantFrom<Record<string, string>>(
    { authorization: 'Bearer' }, { authorization: 'Bearer ' }, { authorization: 'Basic YWRtaW46YWRtaW4=' },
    { authorization: `bearer ${target.admin}` }, { authorization: `Bearer ${target.admin}x` }, { authorization: target.admin },
    { authorization: `Bearer ${'a'.repeat(8000)}` }, { authorization: 'Bearer \u00e9\u00ff' }, { authorization: `Bearer ${target.alice.key.slice(0, -1)}` }
  )
  const none = fc.constant<Record<string, string>>({})
  if (schemes.has('publisherKey')) {
    return fc.oneof(
      { weight: 5, arbitrary: fc.constant(bearer(target.alice.key)) },
      { weight: 1, arbitrary: fc.constant(bearer(target.admin)) },
      { weight: 1, arbitrary: fc.constant(bearer(target.bob.key)) },
      { weight: 1, arbitrary: none },
      { weight: 1, arbitrary: malformed }
    )
  }
  if (schemes.has('adminToken')) {
    return fc.oneof(
      { weight: 5, arbitrary: fc.constant(bearer(target.admin)) },
      { weight: 1, arbitrary: fc.constant(bearer(target.alice.key)) },
      { weight: 1, arbitrary: none },
      { weight: 1, arbitrary: malformed }
    )
  }
  if (schemes.has('walletToken')) {
    return fc.oneof(
      { weight: 5, arbitrary: fc.constant(wallet(target.payer.token)) },
      { weight: 1, arbitrary: none },
      { weight: 1, arbitrary: fc.constant(wallet(target.spare.token.slice(0, -2))) },
      { weight: 1, arbitrary: headerText.map(wallet) }
    )
  }
  return fc.oneof({ weight: 5, arbitrary: none }, { weight: 1, arbitrary: fc.constant(wallet(target.payer.token)) }, { weight: 1, arbitrary: malformed })
}

/** Headers besides credentials: idempotency keys, request ids, conditional and content-negotiation headers. */
const otherHeaders: fc.Arbitrary<Record<string, string>> = fc.record({
  'idempotency-key': fc.oneof(fc.uuid(), headerText),
  'x-request-id': fc.oneof(fc.uuid(), headerText),
  'if-none-match': fc.oneof(fc.constant('*'), headerText),
  accept: fc.constantFrom('application/xml', 'text/html', '*/*', 'application/json;q=0'),
  'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0')
}, { requiredKeys: [] })

function queryString (document: OpenAPIV3.Document, operation: Operation): fc.Arbitrary<string> {
  const declared = (operation.operation.parameters ?? []).filter((parameter): parameter is OpenAPIV3.ParameterObject => 'in' in parameter && parameter.in === 'query')
  const pairs = declared.map((parameter) => fc.option(queryValue(resolved(document, parameter.schema)).map((value) => `${parameter.name}=${value}`), { freq: 2 }))
  const names = declared.map((parameter) => parameter.name)
  const extra = fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: names.length === 0 ? fc.constant('limit=1&limit=2') : fc.tuple(fc.constantFrom(...names), queryValue(undefined), queryValue(undefined)).map(([name, a, b]) => `${name}=${a}&${name}=${b}`) },
    { weight: 1, arbitrary: fc.constantFrom('__proto__=1', '__proto__[admin]=1', 'constructor[prototype][admin]=1', 'limit[]=1', 'limit[$gt]=0', 'zzz=1', '=', '&&', 'a'.repeat(4000) + '=1', 'limit', 'token=awt_secret&key=apk_secret') }
  )
  return fc.tuple(fc.tuple(...pairs), extra).map(([chosen, more]) => {
    const parts = [...chosen, more].filter((part): part is string => part !== null)
    return parts.length === 0 ? '' : `?${parts.join('&')}`
  })
}

function filledPath (target: Target, operation: Operation): fc.Arbitrary<string> {
  const parameters = (operation.operation.parameters ?? []).filter((parameter): parameter is OpenAPIV3.ParameterObject => 'in' in parameter && parameter.in === 'path')
  if (parameters.length === 0) return fc.constant(operation.template)
  return fc.tuple(...parameters.map((parameter) => pathParameter(usefulIds(target, operation), resolved(target.document, parameter.schema))))
    .map((values) => parameters.reduce((path, parameter, i) => path.replace(`{${parameter.name}}`, values[i] ?? ''), operation.template))
}

function bodyOf (document: OpenAPIV3.Document, operation: Operation): fc.Arbitrary<Body | undefined> {
  const requestBody = operation.operation.requestBody as OpenAPIV3.RequestBodyObject | undefined
  if (requestBody !== undefined) return body(resolved(document, requestBody.content['application/json']?.schema))
  // No body is expected: send none, mostly, and sometimes one anyway.
  return fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: body(undefined) })
}

function describe (method: string, path: string, headers: Record<string, string>, sent: Body | undefined): string {
  const cut = (text: string) => text.length > 160 ? `${text.slice(0, 160)}…(${text.length} chars)` : text
  const shownHeaders = Object.entries(headers).map(([name, value]) => `${name}: ${cut(value)}`).join(' | ')
  const bytes = sent === undefined ? '' : typeof sent.bytes === 'string' ? sent.bytes : sent.bytes.toString('latin1')
  return `${method} ${cut(path)} [${shownHeaders}]${sent === undefined ? '' : ` body (${sent.kind}): ${cut(JSON.stringify(bytes))}`}`
}

/** Requests for one operation: credentials, path, query, headers and body from the schemas and from the nasty pools. */
export function fuzzCases (target: Target, operation: Operation): fc.Arbitrary<FuzzCase> {
  return fc.tuple(
    credentials(target, operation), filledPath(target, operation), queryString(target.document, operation), otherHeaders,
    bodyOf(target.document, operation)
  )
    .map(([auth, path, query, more, sent]) => {
      const headers: Record<string, string> = { ...auth, ...more }
      if (sent?.contentType !== undefined) headers['content-type'] = sent.contentType
      if (sent?.contentEncoding !== undefined) headers['content-encoding'] = sent.contentEncoding
      return {
        request: { method: operation.method, path: `${path}${query}`, headers, body: sent?.bytes },
        description: describe(operation.method, `${path}${query}`, headers, sent)
      }
    })
}
