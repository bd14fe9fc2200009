/** Where an input property goes in the upstream's request. */
export type ParameterPlace = 'path' | 'query' | 'header' | 'body'

/**
 * How an imported OpenAPI operation's Bee turns its input into the upstream's own request, and its answer back into a
 * result. Stored with the Bee (published_bees.upstream_mapping); the credential is stored apart, sealed.
 */
export interface RequestMapping {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'OPTIONS' | 'HEAD' | 'PATCH' | 'TRACE'
  /** The server URL, its variables given their defaults; no trailing slash. */
  serverUrl: string
  /** The operation's path template, as in the document: `/pets/{petId}`. */
  path: string
  /** Each input property that is a parameter, under its upstream name, and where it goes. */
  parameters: Array<{ name: string, in: ParameterPlace }>
  /**
   * The JSON body: none, the input's `body` property whole (a body that is not an object, or whose properties would
   * collide with a parameter), or made of the parameters placed `body`.
   */
  body: 'none' | 'whole' | 'properties'
  /** An answer that is not a JSON object is served as `{ "data": answer }`, since a result is always an object. */
  output: 'object' | 'wrapped'
  /** Where the upstream credential goes; null when the operation needs none. */
  credential: { in: 'header' | 'query', name: string } | { in: 'bearer' } | null
}

/** The input property that carries a body sent whole, or a wrapped answer. */
export const WHOLE_BODY = 'body'
export const WRAPPED_ANSWER = 'data'

export interface UpstreamRequest {
  url: string
  method: RequestMapping['method']
  headers: Record<string, string>
  body: string | undefined
}

/** A parameter value as text: arrays are comma-separated (OpenAPI's `simple` style, the default for path and header). */
const text = (value: unknown): string => Array.isArray(value) ? value.map(String).join(',') : String(value)

/**
 * The upstream request for a validated input. Path parameters are percent-encoded, query parameters follow OpenAPI's
 * default `form` style with `explode` (an array repeats its name), headers are sent as text.
 */
export function upstreamRequest (mapping: RequestMapping, input: Record<string, unknown>, credential: string | null): UpstreamRequest {
  const headers: Record<string, string> = { accept: 'application/json' }
  const query = new URLSearchParams()
  const body: Record<string, unknown> = {}
  let path = mapping.path
  for (const { name, in: place } of mapping.parameters) {
    const value = input[name]
    if (value === undefined) continue
    if (place === 'path') path = path.split(`{${name}}`).join(encodeURIComponent(text(value)))
    else if (place === 'query') for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item))
    else if (place === 'header') headers[name.toLowerCase()] = text(value)
    else body[name] = value
  }
  const place = mapping.credential
  if (place !== null && credential !== null) {
    if (place.in === 'bearer') headers.authorization = `Bearer ${credential}`
    else if (place.in === 'header') headers[place.name.toLowerCase()] = credential
    else query.set(place.name, credential)
  }
  const sent = mapping.body === 'whole' ? input[WHOLE_BODY] : mapping.body === 'properties' ? body : undefined
  if (sent !== undefined) headers['content-type'] = 'application/json'
  const search = query.size === 0 ? '' : `?${query.toString()}`
  return { url: `${mapping.serverUrl}${path}${search}`, method: mapping.method, headers, body: sent === undefined ? undefined : JSON.stringify(sent) }
}
