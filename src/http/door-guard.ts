import type { FastifyRequest } from 'fastify'
import { failure } from '../core/errors.js'
import { commaList } from '../core/comma-list.js'
import type { Config } from '../config.js'

/** What the guard needs of the configuration: where the service listens, where it is reached, which pages may call it. */
export type DoorGuardConfig = Pick<Config, 'HOST' | 'PUBLIC_BASE_URL' | 'CORS_ORIGINS'>

/** Names that always mean this machine (RFC 6761 localhost, 127.0.0.0/8, ::1), as URL writes a hostname. */
export const isLoopback = (hostname: string) =>
  hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127(\.\d{1,3}){3}$/.test(hostname)

/** The hostname of a Host header (lower case, IPv6 in brackets), or null when it is not a host[:port]. */
function hostnameOf (host: string): string | null {
  const url = URL.canParse(`http://${host}`) ? new URL(`http://${host}`) : null
  return url === null || url.host !== host.toLowerCase().replace(/:80$/, '') ? null : url.hostname
}

/**
 * An onRequest hook for the JSON-RPC doors (/mcp, /a2a), against DNS rebinding (MCP transports: servers MUST
 * validate Origin). A page on another origin that a browser lets reach this service (its name rebound to
 * 127.0.0.1) sends its own Host and Origin, so:
 * - listening on a loopback address, a Host that is not loopback, nor PUBLIC_BASE_URL's host, is 403 HOST_FORBIDDEN;
 * - an Origin (only browsers send one) is 403 ORIGIN_FORBIDDEN unless it is in CORS_ORIGINS, or is the service's own
 *   origin: PUBLIC_BASE_URL's, or, listening on loopback, the loopback Host the request came to.
 * Clients that are not browsers send no Origin and are untouched, and so is every request while listening on
 * another address without an Origin.
 */
export function doorGuard (config: DoorGuardConfig) {
  const loopbackBound = isLoopback(config.HOST.toLowerCase()) || config.HOST === '::1'
  const publicUrl = config.PUBLIC_BASE_URL !== undefined && URL.canParse(config.PUBLIC_BASE_URL) ? new URL(config.PUBLIC_BASE_URL) : null
  const origins = new Set(commaList(config.CORS_ORIGINS))
  if (publicUrl !== null) origins.add(publicUrl.origin)
  const trusted = (hostname: string) => hostname === publicUrl?.hostname || (loopbackBound && isLoopback(hostname))
  // A client sends the same Host on every request, and reading one builds two URLs (a fiftieth of an MCP
  // tools/call's CPU time in a profile of `npm run bench -- --only MCP`): the last one read is kept.
  let lastHost: string | undefined
  let lastHostname: string | null = null
  const hostnameOfLast = (host: string) => {
    if (host !== lastHost) [lastHost, lastHostname] = [host, hostnameOf(host)]
    return lastHostname
  }

  return async (request: FastifyRequest) => {
    const host = request.headers.host
    const path = request.url.split('?', 1)[0]
    if (loopbackBound && host !== undefined) {
      const hostname = hostnameOfLast(host)
      if (hostname === null || !trusted(hostname)) {
        throw failure('HOST_FORBIDDEN', `This instance listens on a loopback address and answers ${path} for a loopback Host ` +
          `(localhost, 127.0.0.1, [::1]) or PUBLIC_BASE_URL's host only, not "${host.slice(0, 100)}". Behind a gateway, set PUBLIC_BASE_URL.`)
      }
    }
    const origin = request.headers.origin
    if (origin === undefined || origins.has(origin)) return
    const url = URL.canParse(origin) ? new URL(origin) : null
    if (url !== null && host !== undefined && url.host === host.toLowerCase() && trusted(url.hostname)) return
    throw failure('ORIGIN_FORBIDDEN', `Pages on "${origin.slice(0, 100)}" may not call ${path}: add the origin to CORS_ORIGINS ` +
      'to let them. Clients that are not browsers send no Origin.')
  }
}
