import { Agent, fetch } from 'undici'
import { guardedConnector, type EgressPolicy } from '../publishing/egress.js'

/**
 * The fetch the authorization server reads Client ID Metadata Documents with: through the SSRF
 * guard's connector (the operator's EGRESS_ALLOWLIST applies), never to a private or reserved address.
 * oidc-provider bounds it further: 2.5 s, 5 KB, no redirects, and caches what it fetched.
 */
export function guardedFetch (policy: EgressPolicy, timeoutMs: number): (url: string | URL, init: RequestInit) => Promise<Response> {
  const agent = new Agent({ connections: 4, connect: guardedConnector(policy, timeoutMs), headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  return async (url, init) => await fetch(url, { ...init, dispatcher: agent } as Parameters<typeof fetch>[1]) as unknown as Response
}
