/**
 * What the service uses of undici, imported only by src/core/lazy-agent.ts, with the first outbound request. An ES
 * module of its own so that its names survive the bundle: imported dynamically, the bundle's copy of undici (CommonJS)
 * would be one default export.
 */
export { Agent, buildConnector, fetch, request } from 'undici'
