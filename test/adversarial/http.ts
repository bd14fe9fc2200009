import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'

/** A request as the adversarial tests build it: the path already encoded, the body as raw bytes. */
export interface RawRequest {
  method: string
  /** Path and query string, sent as they are (percent-encoding is the caller's). */
  path: string
  headers?: Record<string, string | string[]>
  body?: string | Buffer
}

export interface RawResponse {
  status: number
  headers: IncomingHttpHeaders
  body: Buffer
  /** Milliseconds from sending the request to the last byte of the answer. */
  ms: number
  /** The JSON body, or undefined when it is not JSON. */
  json: unknown
}

/** Far past the 2 s a request may take: a request still running then is a hang, and is abandoned. */
const ABANDON_MS = 10_000

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

/**
 * Sends exactly the bytes asked for over node:http (fetch would normalise the path and refuse some
 * headers). Resolves with the answer, or rejects on a connection error or after ABANDON_MS.
 */
export function send (base: string, raw: RawRequest): Promise<RawResponse> {
  const url = new URL(base)
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | string[]> = { ...raw.headers }
    if (raw.body !== undefined) headers['content-length'] = String(Buffer.byteLength(raw.body))
    const outgoing = httpRequest({
      host: url.hostname,
      port: url.port,
      method: raw.method,
      path: raw.path,
      headers,
      agent,
      timeout: ABANDON_MS
    }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', reject)
      response.on('end', () => {
        const body = Buffer.concat(chunks)
        let json: unknown
        try {
          json = JSON.parse(body.toString('utf8'))
        } catch {}
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, ms: performance.now() - started, json })
      })
    })
    outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error(`no answer in ${ABANDON_MS} ms`), { code: 'HANG' })))
    outgoing.on('error', reject)
    outgoing.end(raw.body)
  })
}

/** JSON in, with the content type set: for the set-up and the attacks, not the fuzzer. */
export function sendJson (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  return send(base, {
    method,
    path,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
}

/** Why an error answer breaks the contract `{error, code, message}` (strings, JSON content type), or null. */
export function errorShapeProblem (response: RawResponse): string | null {
  const type = String(response.headers['content-type'] ?? '')
  if (!/^application\/json\b/i.test(type)) return `content-type is "${type}", not application/json`
  const body = response.json as Record<string, unknown> | undefined
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON object'
  for (const field of ['error', 'code', 'message']) {
    if (typeof body[field] !== 'string' || body[field] === '') return `"${field}" is not a non-empty string`
  }
  return null
}

/**
 * The JSON-RPC doors (MCP, A2A) answer in JSON-RPC even when HTTP refuses: `{jsonrpc: "2.0", id, error: {code,
 * message, data}}`, with an integer code and a message a client can show.
 */
export function jsonRpcErrorProblem (response: RawResponse): string | null {
  const type = String(response.headers['content-type'] ?? '')
  if (!/^application\/json\b/i.test(type)) return `content-type is "${type}", not application/json`
  const body = response.json as Record<string, unknown> | undefined
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON object'
  if (body.jsonrpc !== '2.0') return '"jsonrpc" is not "2.0"'
  if (!('id' in body)) return 'no "id" (null when the request had none)'
  const error = body.error as Record<string, unknown> | undefined
  if (typeof error !== 'object' || error === null) return 'no "error" object'
  if (!Number.isInteger(error.code)) return '"error.code" is not an integer'
  if (typeof error.message !== 'string' || error.message === '') return '"error.message" is not a non-empty string'
  return null
}

/** Closes the kept-alive connections, so a server being stopped has no idle client holding it open. */
export function closeConnections (): void {
  agent.destroy()
}
