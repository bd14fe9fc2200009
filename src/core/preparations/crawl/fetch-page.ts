import { guardedConnector, type EgressPolicy } from '../../publishing/egress.js'
import { LazyAgent } from '../../lazy-agent.js'

/** The product token robots.txt rules are matched against. */
export const ROBOTS_AGENT = 'ApiaryPreparer'

const MAX_REDIRECTS = 5

export type Fetched =
  | { ok: true, url: string, contentType: string, body: string, bytes: number }
  /** `forbidden`: the SSRF guard refused the address; `status`: the HTTP status, 0 when there was no answer. */
  | { ok: false, url: string, reason: string, forbidden: boolean, status: number, bytes: number }

export interface FetchRequest {
  accept: string
  maxBytes: number
  signal: AbortSignal
  /** May a redirect lead there? The crawl stays on the site. */
  follows (url: URL): boolean
  /** Is this Content-Type what the caller reads? */
  wants (contentType: string): boolean
}

interface Failure { bytes?: number, forbidden?: boolean, status?: number }

const failed = (url: string, reason: string, { bytes = 0, forbidden = false, status = 0 }: Failure = {}): Fetched =>
  ({ ok: false, url, reason, forbidden, status, bytes })

const egressRefused = (error: unknown) => {
  const { code, cause } = error as { code?: string, cause?: { code?: string } }
  return code === 'EGRESS_FORBIDDEN' || cause?.code === 'EGRESS_FORBIDDEN'
}

/**
 * GETs a website's pages for the crawl: every connection through the SSRF guard, a clear User-Agent,
 * redirects followed by hand (each hop must stay on the site, at most five, no loops), and a time limit
 * and a size cap on each page. Failures are answers with a reason, for the crawl's notes.
 */
export class SiteFetcher {
  readonly #agent: LazyAgent
  readonly #userAgent: string
  readonly #timeoutMs: number

  constructor (policy: EgressPolicy, userAgent: string, timeoutMs: number) {
    this.#agent = new LazyAgent((undici) =>
      new undici.Agent({ connections: 4, connect: guardedConnector(undici, policy, timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs }))
    this.#userAgent = userAgent
    this.#timeoutMs = timeoutMs
  }

  async get (address: string, wanted: FetchRequest): Promise<Fetched> {
    const signal = AbortSignal.any([wanted.signal, AbortSignal.timeout(this.#timeoutMs)])
    const visited = new Set<string>()
    let url = new URL(address)
    try {
      const { undici, agent } = await this.#agent.get()
      for (;;) {
        visited.add(url.href)
        const response = await undici.request(url, {
          method: 'GET',
          dispatcher: agent,
          signal,
          headers: { 'user-agent': this.#userAgent, accept: wanted.accept, 'accept-encoding': 'identity' }
        })
        const location = response.headers.location
        if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
          await response.body.dump()
          const next = new URL(location, url)
          if (visited.has(next.href)) return failed(address, `redirect loop (${url.href} → ${next.href})`)
          if (visited.size > MAX_REDIRECTS) return failed(address, `more than ${MAX_REDIRECTS} redirects`)
          if (!wanted.follows(next)) return failed(address, `redirects off the site, to ${next.href}`)
          url = next
          continue
        }
        const contentType = String(response.headers['content-type'] ?? '')
        if (response.statusCode < 200 || response.statusCode > 299) {
          await response.body.dump()
          return failed(address, `HTTP ${response.statusCode}`, { status: response.statusCode })
        }
        if (!wanted.wants(contentType)) {
          await response.body.dump()
          return failed(address, `not a type this crawl reads (${contentType === '' ? 'no Content-Type' : contentType})`)
        }
        const declared = Number(response.headers['content-length'])
        if (Number.isFinite(declared) && declared > wanted.maxBytes) {
          response.body.destroy()
          return failed(address, `larger than the page size cap (${declared} bytes > ${wanted.maxBytes})`)
        }
        const chunks: Buffer[] = []
        let bytes = 0
        for await (const chunk of response.body) {
          bytes += (chunk as Buffer).length
          if (bytes > wanted.maxBytes) {
            response.body.destroy()
            return failed(address, `larger than the page size cap (more than ${wanted.maxBytes} bytes)`, { bytes })
          }
          chunks.push(chunk as Buffer)
        }
        return { ok: true, url: url.href, contentType, body: Buffer.concat(chunks).toString('utf8'), bytes }
      }
    } catch (error) {
      if (egressRefused(error)) return failed(address, 'its address is loopback, private or reserved (refused by the SSRF guard)', { forbidden: true })
      if (wanted.signal.aborted) return failed(address, 'the crawl was stopped (time budget, or the job ended)')
      const code = (error as { code?: string }).code
      // The page's timer and undici's own (headers, body) are set alike: whichever fires first, the reason is the same.
      if (signal.aborted || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        return failed(address, `no complete answer within ${this.#timeoutMs} ms`)
      }
      return failed(address, `could not be fetched (${code ?? (error as Error).message})`)
    }
  }

  async close (): Promise<void> {
    await this.#agent.close()
  }
}
