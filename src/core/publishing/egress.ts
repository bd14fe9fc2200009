import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP, type LookupFunction, type Socket } from 'node:net'
import type { buildConnector } from 'undici'
import type { Undici } from '../lazy-agent.js'

/**
 * Where a published Bee may not point: loopback, private, link-local (with the cloud metadata
 * address 169.254.169.254), unique-local, carrier-grade NAT, multicast and reserved ranges, and the
 * IPv6 transition ranges that lead to IPv4 addresses.
 */
const forbidden = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]
] as const) forbidden.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32],
  // Transition ranges that also carry an IPv4 address and reach it where the host routes them
  // (IPv4-translated, local-use NAT64, 6to4, Teredo), the discard prefix and the old site-local range.
  ['::ffff:0:0:0', 96], ['64:ff9b:1::', 48], ['2002::', 16], ['2001::', 32], ['100::', 64], ['fec0::', 10]
] as const) forbidden.addSubnet(network, prefix, 'ipv6')

/** The eight 16-bit groups of an IPv6 address (with or without a trailing dotted quad), or null. */
function ipv6Groups (address: string): number[] | null {
  const bare = address.replace(/%.*$/, '')
  if (isIP(bare) !== 6) return null
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare)
  const hex = quad === null
    ? bare
    : bare.slice(0, quad.index) + [0, 2].map((i) => ((Number(quad[i + 1]) << 8) | Number(quad[i + 2])).toString(16)).join(':')
  const parse = (part: string) => part === '' ? [] : part.split(':').map((group) => parseInt(group, 16))
  const [head = '', tail] = hex.split('::')
  if (tail === undefined) return parse(head)
  const before = parse(head)
  const after = parse(tail)
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after]
}

/**
 * An IPv6 address that carries an IPv4 one is that IPv4 address on the wire: IPv4-mapped
 * `::ffff:10.0.0.1` (also written `::ffff:a00:1`) and the deprecated IPv4-compatible `::10.0.0.1`
 * (`::/96`, which the URL parser writes `::a00:1`). Both are checked as the IPv4 address they embed;
 * `::` and `::1` are IPv6's own unspecified and loopback addresses.
 */
function unmapped (address: string): { address: string, family: 'ipv4' | 'ipv6' } {
  const groups = ipv6Groups(address)
  if (groups === null) return { address, family: 'ipv4' }
  const [g0, g1, g2, g3, g4, g5 = 0, g6 = 0, g7 = 0] = groups
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0
  const ipv6Own = g5 === 0 && g6 === 0 && g7 <= 1
  if (zeroPrefix && (g5 === 0xffff || (g5 === 0 && !ipv6Own))) {
    return { address: [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join('.'), family: 'ipv4' }
  }
  return { address, family: 'ipv6' }
}

export function isForbiddenAddress (address: string): boolean {
  const plain = unmapped(address)
  return forbidden.check(plain.address, plain.family)
}

const HOST_NAME = /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i

/** Why an allow-list entry is not a host name (RFC 1123), an IP address or a CIDR range; null when it is one. */
export function allowlistEntryProblem (entry: string): string | null {
  const [network = '', prefix, extra] = entry.split('/')
  if (prefix === undefined) return isIP(network) !== 0 || HOST_NAME.test(network) ? null : `"${entry}" is not a host name, an IP address or a CIDR range`
  const family = isIP(network)
  const bits = family === 6 ? 128 : 32
  if (family === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) {
    return `"${entry}" is not a CIDR range (an IP address, a slash and a prefix length of 0 to ${bits})`
  }
  return null
}

/**
 * The operator's allow-list (EGRESS_ALLOWLIST): host names, IP addresses, or CIDR ranges that may be
 * reached even though they are private, e.g. an internal Bee or a test server on 127.0.0.1.
 */
export class EgressPolicy {
  readonly #hosts = new Set<string>()
  readonly #ranges = new BlockList()

  constructor (entries: readonly string[]) {
    for (const entry of entries) {
      const [network, prefix] = entry.split('/')
      if (network !== undefined && isIP(network) !== 0) {
        const family = isIP(network) === 6 ? 'ipv6' : 'ipv4'
        this.#ranges.addSubnet(network, prefix === undefined ? (family === 'ipv6' ? 128 : 32) : Number(prefix), family)
      } else {
        this.#hosts.add(entry.toLowerCase())
      }
    }
  }

  /** Is this host name, or IP literal, on the allow-list? */
  allowsHost (host: string): boolean {
    const bare = host.toLowerCase().replace(/^\[|\]$/g, '')
    if (isIP(bare) === 0) return this.#hosts.has(bare)
    const plain = unmapped(bare)
    return this.#ranges.check(plain.address, plain.family)
  }

  /** May this address be connected to, for a request to this host? */
  allows (host: string, address: string): boolean {
    return this.allowsHost(host) || this.allowsHost(address) || !isForbiddenAddress(address)
  }

  /**
   * A DNS lookup that refuses forbidden answers. The connection is made to the address checked here,
   * so a name whose answer changes between publish time and call time cannot slip through.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, '', 0)
      const list = addresses as LookupAddress[]
      const allowed = list.filter((entry) => this.allows(hostname, entry.address))
      if (allowed.length === 0) {
        const refused = Object.assign(new Error(`${hostname} resolves only to forbidden addresses (${list.map((entry) => entry.address).join(', ')})`), { code: 'EGRESS_FORBIDDEN' })
        return callback(refused, '', 0)
      }
      if ((options as { all?: boolean }).all === true) return (callback as (e: null, a: LookupAddress[]) => void)(null, allowed)
      const first = allowed[0] as LookupAddress
      callback(null, first.address, first.family)
    })
  }

  /** Checks an endpoint at publish time: scheme, and every address its host resolves to now. */
  async check (endpoint: string): Promise<string | null> {
    let url: URL
    try {
      url = new URL(endpoint)
    } catch {
      return 'endpoint must be an absolute URL'
    }
    const host = url.hostname.replace(/^\[|\]$/g, '')
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.allowsHost(host))) {
      return 'endpoint must be an https URL (plain http only for hosts on the operator\'s EGRESS_ALLOWLIST)'
    }
    if (url.username !== '' || url.password !== '') return 'endpoint must not carry credentials'
    if (isIP(host) !== 0) return this.allows(host, host) ? null : `endpoint address ${host} is loopback, private, link-local or reserved`
    const addresses = await new Promise<LookupAddress[]>((resolve) => {
      dnsLookup(host, { all: true }, (error, found) => resolve(error === null ? found : []))
    })
    if (addresses.length === 0) return `endpoint host ${host} does not resolve`
    const bad = addresses.find((entry) => !this.allows(host, entry.address))
    return bad === undefined ? null : `endpoint host ${host} resolves to ${bad.address}, which is loopback, private, link-local or reserved`
  }
}

/** Whether an error, or one of its causes, is the guard's refusal (a fetch wraps the connector's error in its own). */
export function refusedByGuard (error: unknown): boolean {
  for (let cause = error; cause instanceof Object; cause = (cause as { cause?: unknown }).cause) {
    if ((cause as { code?: unknown }).code === 'EGRESS_FORBIDDEN') return true
  }
  return false
}

/**
 * An undici connector that connects only where the policy allows: the DNS answer is checked by the
 * policy's lookup, and the address actually connected to once more. An IP literal skips the lookup, so
 * it is checked before connecting: a forbidden one is never dialled (nor, for https, shaken hands with).
 */
export function guardedConnector (undici: Undici, policy: EgressPolicy, timeoutMs: number): buildConnector.connector {
  const connect = undici.buildConnector({ lookup: policy.lookup, timeout: timeoutMs } as buildConnector.BuildOptions)
  return (connectOptions, callback) => {
    const literal = connectOptions.hostname.replace(/^\[|\]$/g, '')
    if (isIP(literal) !== 0 && !policy.allows(literal, literal)) {
      return callback(Object.assign(new Error(`address ${literal} is forbidden`), { code: 'EGRESS_FORBIDDEN' }), null)
    }
    connect(connectOptions, (error, socket) => {
      if (error !== null) return callback(error, null)
      const address = (socket as Socket).remoteAddress ?? ''
      if (!policy.allows(connectOptions.hostname, address)) {
        socket.destroy()
        return callback(Object.assign(new Error(`connected address ${address} is forbidden`), { code: 'EGRESS_FORBIDDEN' }), null)
      }
      callback(null, socket)
    })
  }
}
