import { createHmac } from 'node:crypto'
import type { CallToolResult, FetchLike } from '@modelcontextprotocol/client'
import { ApiError, failure, failureAs } from '../errors.js'
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../json-depth.js'
import type { BeeEvents } from '../bee.js'
import type { BeeContext, BeeOutcome, ErrorCodes } from '../registry.js'
import { guardedConnector, refusedByGuard, type EgressPolicy } from './egress.js'
import { inUpstreamSpan } from './upstream-span.js'
import { CallDeadline } from './call-deadline.js'
import { LazyAgent } from '../lazy-agent.js'
import { McpSessions } from './mcp-sessions.js'
import type { McpToolMapping } from './mcp-tool-mapping.js'
import { EVENT_STREAM, EventTooLarge, readEventStream } from './event-stream.js'
import { upstreamRequest, WRAPPED_ANSWER, type RequestMapping, type UpstreamRequest } from './request-mapping.js'

export interface ProxyOptions {
  policy: EgressPolicy
  timeoutMs: number
  maxResponseBytes: number
  /** Told when an imported MCP server says its tools changed. */
  onToolsChanged?: (serverUrl: string) => void
}

/** An imported operation's Bee: its request mapping and its upstream credential (opened), if any. */
export interface MappedTarget {
  beeId: string
  mapping: RequestMapping
  credential: string | null
}

/** An imported MCP tool's Bee: the server and tool it calls, and the upstream credential (opened), if any. */
export interface McpTarget {
  beeId: string
  mapping: McpToolMapping
  credential: string | null
}

type AnswerHeaders = Record<string, string | string[] | undefined>

interface Answer {
  status: number
  headers: AnswerHeaders
  text: string
}

/** An answer's head, for its body to be read as the call needs it. */
interface UpstreamResponse {
  statusCode: number
  headers: AnswerHeaders
  body: AsyncIterable<Buffer> & {
    destroy (): void
    bytes (): Promise<Uint8Array>
    readableEnded: boolean
    on (event: 'error', listener: () => void): UpstreamResponse['body']
  }
}

/** Why a request got no answer: each caller says it in its own words. */
export class SendFailure extends Error {
  constructor (readonly kind: 'timeout' | 'too-large' | 'forbidden' | 'unreachable' | 'cancelled', cause: unknown) {
    super(kind, { cause })
  }
}

export interface RemoteTarget {
  beeId: string
  endpoint: string
  /** The Bee's version the call is for (the latest, or the one the caller pinned), sent as Bee-Version. */
  version: string
  signingSecret: string
  /** A rotated-out secret that still signs, next to the new one, until `previousUntil` (epoch ms). */
  previousSigningSecret?: string | null
  previousUntil?: number
  /** A stream Bee: its upstream answers Server-Sent Events, whether or not the caller takes them (a door that cannot stream gets the result). */
  stream?: boolean
}

/** Where the events of a stream Bee's call go when its door takes only the result. */
const UNHEARD: BeeEvents = { data () {}, progress () {} }

export const SIGNATURE_HEADER = 'x-apiary-signature'
export const TIMESTAMP_HEADER = 'x-apiary-timestamp'
export const BEE_ID_HEADER = 'x-apiary-bee-id'
export const BEE_VERSION_HEADER = 'bee-version'
export const CONFIDENCE_HEADER = 'x-bee-confidence'

/**
 * `v1=` HMAC-SHA256 over `${timestamp}.${body}` with the Bee's signing secret (see docs/publishers.md). During a
 * rotation's overlap, one `v1=` entry per secret, the new one first, comma-separated as Stripe does, so
 * the publisher's endpoint accepts the call whichever secret it holds.
 */
export function sign (secrets: readonly string[], timestamp: string, body: string): string {
  return secrets.map((secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`).join(',')
}

const signingSecrets = (target: RemoteTarget, now: number) =>
  target.previousSigningSecret != null && (target.previousUntil ?? 0) > now
    ? [target.signingSecret, target.previousSigningSecret]
    : [target.signingSecret]

/** Every failure a call through the proxy can answer with, by status (BEE_OUTPUT_INVALID comes from the sale: 502 for a remote Bee). */
export const PROXY_ERRORS: ErrorCodes = {
  502: ['BEE_UPSTREAM_ERROR', 'BEE_ENDPOINT_FORBIDDEN', 'BEE_OUTPUT_INVALID', 'BEE_RESPONSE_TOO_LARGE'],
  504: ['BEE_TIMEOUT']
}

const upstream = (beeId: string, detail: string) =>
  failure('BEE_UPSTREAM_ERROR', `${beeId}'s endpoint failed: ${detail}. You were not charged.`)

/**
 * Executes published Bees: POSTs the validated input to the Bee's endpoint over pooled connections,
 * signed, with a time limit and a cap on the reply's size. Every connection is checked against the
 * egress policy at the address actually connected to.
 */
export class RemoteBeeProxy {
  readonly #options: ProxyOptions
  readonly #agent: LazyAgent
  /**
   * Stream Bees' calls: each holds its connection for the stream's whole life, so they do not share the pool's 64 per
   * origin (the 65th open stream to an endpoint would wait, unanswered, for one to end, and its sync calls with it).
   * Their callers bound them: STREAM_MAX_OPEN, RUN_CONCURRENCY.
   */
  readonly #streams: LazyAgent
  /** The MCP servers' client sessions, over the same pool and egress checks. */
  readonly mcp: McpSessions

  constructor (options: ProxyOptions) {
    this.#options = options
    this.#agent = new LazyAgent((undici) =>
      new undici.Agent({ keepAliveTimeout: 10_000, connections: 64, connect: guardedConnector(undici, options.policy, options.timeoutMs) }))
    this.#streams = new LazyAgent((undici) =>
      new undici.Agent({ keepAliveTimeout: 10_000, connections: null, connect: guardedConnector(undici, options.policy, options.timeoutMs) }))
    this.mcp = new McpSessions({ fetch: this.#fetch, timeoutMs: options.timeoutMs, onToolsChanged: options.onToolsChanged })
  }

  /**
   * fetch over the pool: every connection checked against the egress policy. The answer to a POST (a message, or the
   * stream that ends with its answer) is read whole, and refused past REMOTE_BEE_MAX_RESPONSE_BYTES, so the call fails
   * at once instead of waiting out its time limit; the session's long-lived GET stream is passed on as it comes.
   */
  readonly #fetch: FetchLike = async (url, init) => {
    const { undici, agent } = await this.#agent.get()
    const response = await undici.fetch(url, { ...init, dispatcher: agent } as never)
    if (init?.method !== 'POST' || response.body === null) return response as unknown as Response
    const body = response.body
    const text = await this.#readCapped(body, () => { body.cancel().catch(() => {}) })
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers as unknown as Headers })
  }

  /**
   * Calls a published Bee: its JSON answer, or, for a stream Bee's call (`context.events`), its Server-Sent Events, each
   * handed to `context.events` as it comes, then its result.
   */
  async call (target: RemoteTarget, input: unknown, context: BeeContext): Promise<BeeOutcome<unknown>> {
    const body = JSON.stringify(input)
    const now = Date.now()
    const timestamp = String(Math.floor(now / 1000))
    const events = context.events ?? (target.stream === true ? UNHEARD : undefined)
    const request: UpstreamRequest = {
      url: target.endpoint,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: events === undefined ? 'application/json' : EVENT_STREAM,
        [BEE_ID_HEADER]: target.beeId,
        [BEE_VERSION_HEADER]: target.version,
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: sign(signingSecrets(target, now), timestamp, body)
      },
      body
    }
    if (events !== undefined) {
      const streamed = await this.#callUpstream(target.beeId, target.endpoint, context, request, async (response) => {
        const type = String(response.headers['content-type'] ?? '')
        if (!type.startsWith(EVENT_STREAM)) throw upstream(target.beeId, `it answered ${type === '' ? 'no Content-Type' : type}, not ${EVENT_STREAM}`)
        return { headers: response.headers, result: await readEventStream(target.beeId, response.body, events, this.#options.maxResponseBytes) }
      }, this.#streams)
      return outcome(target.beeId, streamed.headers, streamed.result)
    }
    const answer = await this.#callUpstream(target.beeId, target.endpoint, context, request, this.#readAnswer)
    return outcome(target.beeId, answer.headers, parsed(target.beeId, answer.text))
  }

  /**
   * Executes an imported OpenAPI operation's Bee: the upstream's own request (method, path, query, headers, JSON body)
   * with its credential, over the same pool and egress checks; its JSON answer becomes the result.
   */
  async callMapped (target: MappedTarget, input: Record<string, unknown>, context: BeeContext): Promise<BeeOutcome<unknown>> {
    const request = upstreamRequest(target.mapping, input, target.credential)
    // The span and logs name the operation's template, never the URL sent: a query may carry the credential.
    const answer = await this.#callUpstream(target.beeId, `${target.mapping.serverUrl}${target.mapping.path}`, context, request, this.#readAnswer)
    const wrapped = target.mapping.output === 'wrapped'
    // An empty 2xx (204, say) is an empty result: nothing to parse.
    const value = answer.text === '' && !wrapped ? {} : parsed(target.beeId, answer.text)
    return outcome(target.beeId, answer.headers, wrapped ? { [WRAPPED_ANSWER]: value } : value)
  }

  /**
   * Executes an imported MCP tool's Bee: `tools/call` on the server's pooled session. The result is the tool's
   * structuredContent when it declares an outputSchema, else its content blocks and their text (CONTENT_RESULT).
   */
  async callTool (target: McpTarget, input: Record<string, unknown>, context: BeeContext): Promise<BeeOutcome<unknown>> {
    const { beeId, mapping } = target
    const timeoutMs = context.timeoutMs ?? this.#options.timeoutMs
    const credential = target.credential === null ? null : { place: mapping.credential, value: target.credential }
    let answer: CallToolResult
    try {
      answer = await inUpstreamSpan(beeId, `${mapping.serverUrl}#${mapping.tool}`, async () =>
        await this.mcp.callTool({ serverUrl: mapping.serverUrl, credential }, mapping.tool, input, { timeoutMs, signal: context.signal }))
    } catch (error) {
      throw toolFailure(beeId, error, timeoutMs, context)
    }
    if (answer.isError === true) throw upstream(beeId, `the tool answered with an error (${contentText(answer).slice(0, 200)})`)
    const result = mapping.output === 'structured' ? answer.structuredContent : { text: contentText(answer), content: answer.content }
    return { result: checkedResult(beeId, result ?? null), confidence: 1, freshness: 0 }
  }

  /** A document to import, fetched over the same pool, egress checks, time limit and size cap as a Bee's answer. */
  async fetchDocument (url: string): Promise<{ status: number, text: string }> {
    const { status, text } = await this.#send({ url, method: 'GET', headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' }, body: undefined },
      {}, this.#readAnswer)
    return { status, text }
  }

  /** A 2xx answer's body, whole (capped); another status is the upstream's failure. */
  readonly #readAnswer = async (response: UpstreamResponse): Promise<Answer> =>
    ({ status: response.statusCode, headers: response.headers, text: await this.#readBody(response) })

  /**
   * An answer's body as text, refused past the cap. One whose Content-Length is within the cap is read whole by undici
   * (which delivers no byte past that length): its own collection skips the stream's events and async iterator, which
   * cost a proxied call about 5 µs. Bytes, not undici's text, which would drop a byte order mark that JSON.parse refuses.
   */
  async #readBody (response: UpstreamResponse): Promise<string> {
    const length = Number(response.headers['content-length'])
    if (!Number.isSafeInteger(length) || length > this.#options.maxResponseBytes) {
      return await this.#readCapped(response.body, () => { response.body.destroy() })
    }
    const bytes = await response.body.bytes()
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
  }

  /** Sends a Bee's request in its span, reads the answer with `read` (after its status was checked), and says its failures as ApiErrors. */
  async #callUpstream<T> (beeId: string, endpoint: string, context: BeeContext, request: UpstreamRequest,
    read: (response: UpstreamResponse) => Promise<T>, pool = this.#agent): Promise<T> {
    try {
      return await inUpstreamSpan(beeId, endpoint, async (traceContext) =>
        await this.#send({ ...request, headers: { ...traceContext, ...request.headers, 'x-request-id': context.requestId } }, context, async (response) => {
          if (response.statusCode < 200 || response.statusCode > 299) throw upstream(beeId, `it answered HTTP ${response.statusCode}`)
          return await read(response)
        }, pool), request.method)
    } catch (error) {
      if (!(error instanceof SendFailure)) throw error
      if (error.kind === 'timeout') {
        throw failure('BEE_TIMEOUT', `${beeId}'s endpoint did not answer within ${context.timeoutMs ?? this.#options.timeoutMs} ms. You were not charged.`)
      }
      if (error.kind === 'cancelled') throw upstream(beeId, 'the call was cancelled')
      if (error.kind === 'too-large') throw failure('BEE_RESPONSE_TOO_LARGE', `${beeId}'s endpoint answered with more than ${this.#options.maxResponseBytes} bytes. You were not charged.`)
      if (error.kind === 'forbidden') throw failure('BEE_ENDPOINT_FORBIDDEN', `${beeId}'s endpoint now resolves to a forbidden address; the call was not sent. You were not charged.`)
      context.log.warn({ err: error.cause, beeId }, 'remote Bee unreachable')
      throw upstream(beeId, 'it could not be reached')
    }
  }

  /**
   * One request with a time limit, its answer read by `read`; its failures as a SendFailure. A run of an async Bee
   * or a stream has a limit of its own (its maxRunSeconds), and may be cancelled meanwhile (`run`).
   */
  async #send<T> (request: UpstreamRequest, run: Pick<BeeContext, 'timeoutMs' | 'signal'>, read: (response: UpstreamResponse) => Promise<T>,
    pool = this.#agent): Promise<T> {
    // Cleared with the answer: AbortSignal.timeout's timer (and its WeakRef) stays until it fires, so every call of
    // the last timeout's span held one (4,700 after 10,000 calls at the bench's pace).
    const limitMs = run.timeoutMs ?? this.#options.timeoutMs
    const deadline = new CallDeadline(limitMs, run.signal)
    try {
      const { undici, agent } = await pool.get()
      const response = await undici.request(request.url, {
        method: request.method,
        dispatcher: agent,
        signal: deadline,
        headers: request.headers,
        body: request.body,
        // undici's own limits (300 s each) would cut a long run short.
        ...(run.timeoutMs === undefined ? {} : { headersTimeout: limitMs, bodyTimeout: limitMs })
      })
      try {
        return await read(response)
      } finally {
        // A body left unread (a refused status, a stream ended early) is dropped with its connection (its abort error is
        // expected, and heard here); one read whole is left as it is.
        if (!response.body.readableEnded) response.body.on('error', () => {}).destroy()
      }
    } catch (error) {
      if (error instanceof SendFailure || error instanceof ApiError) throw error
      if (error instanceof EventTooLarge) throw new SendFailure('too-large', error)
      const code = (error as { code?: string }).code
      // undici's own time limits are set to the run's, and may fire a moment before this call's timer does.
      if (deadline.expired || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') throw new SendFailure('timeout', error)
      if (deadline.aborted) throw new SendFailure('cancelled', error)
      if (code === 'EGRESS_FORBIDDEN' || (error as { cause?: { code?: string } }).cause?.code === 'EGRESS_FORBIDDEN') throw new SendFailure('forbidden', error)
      throw new SendFailure('unreachable', error)
    } finally {
      deadline.clear()
    }
  }

  async close (): Promise<void> {
    await this.mcp.close()
    await this.#agent.close()
    await this.#streams.close()
  }

  /** The body as text, read up to the cap; past it, `stop` ends the body and the read fails. */
  async #readCapped (body: AsyncIterable<Uint8Array>, stop: () => void): Promise<string> {
    const chunks: Uint8Array[] = []
    let size = 0
    for await (const chunk of body) {
      size += chunk.byteLength
      if (size > this.#options.maxResponseBytes) {
        stop()
        throw new SendFailure('too-large', null)
      }
      chunks.push(chunk)
    }
    return Buffer.concat(chunks).toString('utf8')
  }
}

/** The JSON of a 2xx answer, or BEE_OUTPUT_INVALID. */
function parsed (beeId: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw failureAs('BEE_OUTPUT_INVALID', 502, `${beeId}'s endpoint answered with something that is not JSON. You were not charged.`)
  }
}

/** A result as Honey carries it: a JSON object of bounded depth; confidence and freshness from the answer's headers. */
function outcome (beeId: string, headers: AnswerHeaders, result: unknown): BeeOutcome<unknown> {
  return { result: checkedResult(beeId, result), confidence: headerNumber(headers[CONFIDENCE_HEADER], 1, 1), freshness: headerNumber(headers.age, 0, Infinity) }
}

/** The upstream's answer when it is a JSON object of bounded depth, as Honey's result must be; else BEE_OUTPUT_INVALID. */
function checkedResult (beeId: string, result: unknown): object {
  // Honey's result is an object; a string or array would be served mangled into one.
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    const kind = result === null ? 'null' : Array.isArray(result) ? 'an array' : `a ${typeof result}`
    throw failureAs('BEE_OUTPUT_INVALID', 502, `${beeId}'s endpoint answered with ${kind}, not a JSON object. You were not charged.`)
  }
  if (nestedDeeperThan(result, MAX_JSON_DEPTH)) {
    throw failureAs('BEE_OUTPUT_INVALID', 502, `${beeId}'s endpoint answered with JSON nested more than ${MAX_JSON_DEPTH} levels deep. You were not charged.`)
  }
  return result
}

/** The text of a tool's text blocks, joined by newlines. */
const contentText = (answer: CallToolResult): string =>
  answer.content.flatMap((block) => block.type === 'text' ? [block.text] : []).join('\n')

/** Whether an error, or one of its causes, is the size cap's. */
function tooLarge (error: unknown): boolean {
  for (let cause = error; cause instanceof Object; cause = (cause as { cause?: unknown }).cause) {
    if (cause instanceof SendFailure && cause.kind === 'too-large') return true
  }
  return false
}

/** A failed tools/call in the catalog's words. */
function toolFailure (beeId: string, error: unknown, timeoutMs: number, context: BeeContext): Error {
  // The SDK's own error codes (SdkErrorCode.RequestTimeout); its module is loaded with the first session, not here.
  if ((error as { code?: unknown }).code === 'REQUEST_TIMEOUT') {
    return failure('BEE_TIMEOUT', `${beeId}'s MCP server did not answer within ${timeoutMs} ms. You were not charged.`)
  }
  if (context.signal?.aborted === true) return upstream(beeId, 'the call was cancelled')
  if (refusedByGuard(error)) return failure('BEE_ENDPOINT_FORBIDDEN', `${beeId}'s MCP server now resolves to a forbidden address; the call was not sent. You were not charged.`)
  // A JSON-RPC error from the server (its number code) says why; anything else is the connection's.
  if (tooLarge(error)) return failure('BEE_RESPONSE_TOO_LARGE', `${beeId}'s MCP server answered with more than the size a Bee's answer may have. You were not charged.`)
  if (typeof (error as { code?: unknown }).code === 'number') return upstream(beeId, `its MCP server refused the call (${(error as Error).message.slice(0, 200)})`)
  context.log.warn({ err: error, beeId }, 'MCP server unreachable')
  return upstream(beeId, 'it could not be reached')
}

/** A header holding a number in [0, max], or the fallback when absent or out of range. */
function headerNumber (raw: string | string[] | undefined, fallback: number, max: number): number {
  const value = Number(Array.isArray(raw) ? raw[0] : raw)
  return raw !== undefined && Number.isFinite(value) && value >= 0 && value <= max ? value : fallback
}
