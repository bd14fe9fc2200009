import { createHmac } from 'node:crypto'
import { ApiError, failure, failureAs } from '../errors.js'
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../json-depth.js'
import type { BeeContext, BeeOutcome, ErrorCodes } from '../registry.js'
import { guardedConnector, type EgressPolicy } from './egress.js'
import { inUpstreamSpan } from './upstream-span.js'
import { LazyAgent } from '../lazy-agent.js'

export interface ProxyOptions {
  policy: EgressPolicy
  timeoutMs: number
  maxResponseBytes: number
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
}

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

  constructor (options: ProxyOptions) {
    this.#options = options
    this.#agent = new LazyAgent((undici) =>
      new undici.Agent({ keepAliveTimeout: 10_000, connections: 64, connect: guardedConnector(undici, options.policy, options.timeoutMs) }))
  }

  async call (target: RemoteTarget, input: unknown, context: BeeContext): Promise<BeeOutcome<unknown>> {
    const body = JSON.stringify(input)
    const now = Date.now()
    const timestamp = String(Math.floor(now / 1000))
    // Cleared with the answer: AbortSignal.timeout's timer (and its WeakRef) stays until it fires, so every call of
    // the last timeout's span held one (4,700 after 10,000 calls at the bench's pace).
    const timeout = new AbortController()
    // A run of an async Bee has a limit of its own (its maxRunSeconds), and may be cancelled meanwhile.
    const limitMs = context.timeoutMs ?? this.#options.timeoutMs
    const timer = setTimeout(() => timeout.abort(), limitMs)
    const signal = context.signal === undefined ? timeout.signal : AbortSignal.any([timeout.signal, context.signal])
    let status: number
    let headers: Record<string, string | string[] | undefined>
    let text: string
    try {
      ({ status, headers, text } = await inUpstreamSpan(target.beeId, target.endpoint, async (traceContext) => {
        const { undici, agent } = await this.#agent.get()
        const response = await undici.request(target.endpoint, {
          method: 'POST',
          dispatcher: agent,
          signal,
          // undici's own limits (300 s each) would cut a long run short.
          ...(context.timeoutMs === undefined ? {} : { headersTimeout: limitMs, bodyTimeout: limitMs }),
          headers: {
            ...traceContext,
            'content-type': 'application/json',
            accept: 'application/json',
            [BEE_ID_HEADER]: target.beeId,
            [BEE_VERSION_HEADER]: target.version,
            'x-request-id': context.requestId,
            [TIMESTAMP_HEADER]: timestamp,
            [SIGNATURE_HEADER]: sign(signingSecrets(target, now), timestamp, body)
          },
          body
        })
        return { status: response.statusCode, headers: response.headers, text: await this.#readCapped(response.body, target.beeId) }
      }))
    } catch (error) {
      if (error instanceof ApiError) throw error
      if (timeout.signal.aborted) {
        throw failure('BEE_TIMEOUT', `${target.beeId}'s endpoint did not answer within ${limitMs} ms. You were not charged.`)
      }
      if (signal.aborted) throw upstream(target.beeId, 'the call was cancelled')
      const code = (error as { code?: string }).code
      if (code === 'EGRESS_FORBIDDEN' || (error as { cause?: { code?: string } }).cause?.code === 'EGRESS_FORBIDDEN') {
        throw failure('BEE_ENDPOINT_FORBIDDEN', `${target.beeId}'s endpoint now resolves to a forbidden address; the call was not sent. You were not charged.`)
      }
      context.log.warn({ err: error, beeId: target.beeId }, 'remote Bee unreachable')
      throw upstream(target.beeId, 'it could not be reached')
    } finally {
      clearTimeout(timer)
    }
    if (status < 200 || status > 299) throw upstream(target.beeId, `it answered HTTP ${status}`)
    let result: unknown
    try {
      result = JSON.parse(text)
    } catch {
      throw failureAs('BEE_OUTPUT_INVALID', 502, `${target.beeId}'s endpoint answered with something that is not JSON. You were not charged.`)
    }
    // Honey's result is an object; a string or array would be served mangled into one.
    if (typeof result !== 'object' || result === null || Array.isArray(result)) {
      const kind = result === null ? 'null' : Array.isArray(result) ? 'an array' : `a ${typeof result}`
      throw failureAs('BEE_OUTPUT_INVALID', 502, `${target.beeId}'s endpoint answered with ${kind}, not a JSON object. You were not charged.`)
    }
    if (nestedDeeperThan(result, MAX_JSON_DEPTH)) {
      throw failureAs('BEE_OUTPUT_INVALID', 502, `${target.beeId}'s endpoint answered with JSON nested more than ${MAX_JSON_DEPTH} levels deep. You were not charged.`)
    }
    return { result, confidence: headerNumber(headers[CONFIDENCE_HEADER], 1, 1), freshness: headerNumber(headers.age, 0, Infinity) }
  }

  async close (): Promise<void> {
    await this.#agent.close()
  }

  async #readCapped (body: AsyncIterable<Buffer> & { destroy (): void }, beeId: string): Promise<string> {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of body) {
      size += chunk.length
      if (size > this.#options.maxResponseBytes) {
        body.destroy()
        throw failure('BEE_RESPONSE_TOO_LARGE', `${beeId}'s endpoint answered with more than ${this.#options.maxResponseBytes} bytes. You were not charged.`)
      }
      chunks.push(chunk)
    }
    return Buffer.concat(chunks).toString('utf8')
  }
}

/** A header holding a number in [0, max], or the fallback when absent or out of range. */
function headerNumber (raw: string | string[] | undefined, fallback: number, max: number): number {
  const value = Number(Array.isArray(raw) ? raw[0] : raw)
  return raw !== undefined && Number.isFinite(value) && value >= 0 && value <= max ? value : fallback
}
