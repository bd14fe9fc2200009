import { isDeepStrictEqual } from 'node:util'
import type { Target } from './load.js'
import type { Scenario } from './scenarios.js'

/** Headers whose value is the request's own (its id, the window's count) or node:http's: compared by name only. */
const PER_REQUEST = new Set(['x-request-id', 'ratelimit-remaining', 'ratelimit-reset', 'date', 'keep-alive', 'x-registry-balance'])

async function send ({ url, method, headers, body }: Target): Promise<{ status: number, text: string, headers: string[] }> {
  const response = await fetch(url, { method, headers, body })
  const written = [...response.headers].map(([name, value]) => PER_REQUEST.has(name) ? name : `${name}: ${value}`)
  return { status: response.status, text: await response.text(), headers: written }
}

/** The envelope without its timestamp, which differs between any two calls. */
function comparable (text: string): unknown {
  const { timestamp, ...rest } = JSON.parse(text) as Record<string, unknown>
  return { ...rest, timestamp: typeof timestamp }
}

/**
 * Throws unless both sides answer 2xx with the same content and the same headers (or, for two doors of one service,
 * both 2xx): a ratio between two servers that do different work, or between a 200 and an error page, would mean nothing.
 */
export async function checkSameAnswer (scenario: Scenario): Promise<void> {
  const [service, baseline] = await Promise.all([send(scenario.service), send(scenario.baseline)])
  for (const [side, answer] of [['service', service], ['baseline', baseline]] as const) {
    if (answer.status < 200 || answer.status > 299) {
      throw new Error(`${scenario.title}: the ${side} answered ${answer.status}: ${answer.text.slice(0, 500)}`)
    }
  }
  if (scenario.agreement === 'both 2xx') {
    if (service.text.includes('"isError":true')) throw new Error(`${scenario.title}: the service answered a tool error: ${service.text.slice(0, 500)}`)
    return
  }
  const same = scenario.service.method === 'GET'
    ? service.text === baseline.text
    : isDeepStrictEqual(comparable(service.text), comparable(baseline.text))
  if (!same) {
    throw new Error(`${scenario.title}: service and baseline answer differently:\n${service.text}\n${baseline.text}`)
  }
  if (!isDeepStrictEqual(service.headers, baseline.headers)) {
    throw new Error(`${scenario.title}: service and baseline send different headers:\n${service.headers.join('\n')}\n\n${baseline.headers.join('\n')}`)
  }
}
