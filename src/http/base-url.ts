import type { FastifyRequest } from 'fastify'
import { failure } from '../core/errors.js'

/** A host name, IPv4 or bracketed IPv6 address, and an optional port: nothing that could end a link or a shell word. */
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/

/**
 * The address clients reach this service at: PUBLIC_BASE_URL when the operator set it, else from the
 * request: Apiary sits behind a gateway (trustProxy is on), so X-Forwarded-Proto and X-Forwarded-Host name
 * it when the gateway sets them. Links and examples built from it work from wherever the client called. A
 * Host that is not a plain host name is refused, since it would be printed into pages that others may be
 * served from a cache.
 */
export function baseUrlOf (request: FastifyRequest): string {
  const configured = request.server.config.PUBLIC_BASE_URL
  if (configured !== undefined) return configured
  const host = request.host
  if (!HOST.test(host)) {
    throw failure('HOST_INVALID', 'The Host (or X-Forwarded-Host) header must be a host name or address with an optional port.')
  }
  return `${request.protocol === 'https' ? 'https' : 'http'}://${host.toLowerCase()}`
}
