import type { fetch } from 'undici'
import { LazyAgent } from '../lazy-agent.js'
import { guardedConnector, type EgressPolicy } from '../publishing/egress.js'

/** The most a Client ID Metadata Document may weigh (oidc-provider's default, set here so a refusal can say it). */
export const CLIENT_METADATA_MAX_BYTES = 5 * 1024

/** How long a Client ID Metadata Document may take to arrive: oidc-provider aborts its fetch at 2.5 s, and the connection is held to the same. */
export const CLIENT_METADATA_TIMEOUT_MS = 2500

/**
 * The fetch the authorization server reads Client ID Metadata Documents with: through the SSRF
 * guard's connector (the operator's EGRESS_ALLOWLIST applies), never to a private or reserved address.
 * The body is read here, at most `maxBytes`, before oidc-provider sees it: its own check refuses a
 * chunked body past the bound only with "ReadableStream is locked" (oidc-provider 9.13), where this says
 * why. oidc-provider bounds the whole at 2.5 s (its signal is passed on), allows no redirects, and caches
 * what it fetched as its Cache-Control says. The TLS trust is the process's own (the system store, and
 * NODE_EXTRA_CA_CERTS for a private CA).
 */
export function guardedFetch (
  policy: EgressPolicy, timeoutMs = CLIENT_METADATA_TIMEOUT_MS, maxBytes = CLIENT_METADATA_MAX_BYTES
): (url: string | URL, init: RequestInit) => Promise<Response> {
  const lazy = new LazyAgent((undici) =>
    new undici.Agent({ connections: 4, connect: guardedConnector(undici, policy, timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs }))
  return async (url, init) => {
    const { undici, agent } = await lazy.get()
    const response = await undici.fetch(url, { ...init, dispatcher: agent } as Parameters<typeof fetch>[1])
    const chunks: Uint8Array[] = []
    let received = 0
    for await (const chunk of response.body ?? []) {
      received += chunk.length
      // Leaving the loop by throwing cancels the stream: the rest is not read.
      if (received > maxBytes) throw Object.assign(new Error(`response larger than ${maxBytes} bytes`), { code: TOO_LARGE })
      chunks.push(chunk)
    }
    return new Response(Buffer.concat(chunks), { status: response.status, statusText: response.statusText, headers: response.headers as unknown as Headers })
  }
}

const TOO_LARGE = 'RESPONSE_TOO_LARGE'
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/**
 * Why a Client ID Metadata Document could not be used, in words for the person whose browser shows the
 * refusal; null for any other error. oidc-provider says only "client_id metadata document fetch failed"
 * and keeps the cause to itself.
 */
export function clientDocumentProblem (error: unknown): string | null {
  const top = error as { error_description?: unknown, error_detail?: unknown } | null
  if (typeof top?.error_description !== 'string' || !top.error_description.startsWith('client_id metadata document')) return null
  for (let cause: unknown = error; cause !== null && cause !== undefined; cause = (cause as { cause?: unknown }).cause) {
    const { name, code, message } = cause as { name?: unknown, code?: unknown, message?: unknown }
    if (code === TOO_LARGE || message === 'response too large') return `the document is larger than ${CLIENT_METADATA_MAX_BYTES / 1024} KB`
    if (name === 'TimeoutError' || name === 'AbortError' || TIMEOUT_CODES.has(String(code))) {
      return `the document did not arrive within ${CLIENT_METADATA_TIMEOUT_MS / 1000} s`
    }
    if (code === 'EGRESS_FORBIDDEN') return 'its host is a loopback, private or reserved address'
  }
  return typeof top.error_detail === 'string' ? top.error_detail : null
}
