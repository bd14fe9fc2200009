import { commaList } from '../comma-list.js'
import { isBeeId, MAX_CALLS_PER_MINUTE } from '../schemas.js'

/**
 * RATE_LIMIT_BUILTIN_BEES (`weather-sensor=100,sentiment-analyzer=600`) as a map from Bee id to calls per
 * minute, and why each entry that is not `id=calls` with calls in 1..MAX_CALLS_PER_MINUTE was refused.
 */
export function parseBuiltinLimits (text: string): { limits: Map<string, number>, problems: string[] } {
  const limits = new Map<string, number>()
  const problems: string[] = []
  for (const entry of commaList(text)) {
    const [id = '', calls = '', ...rest] = entry.split('=').map((part) => part.trim())
    const perMinute = /^[0-9]+$/.test(calls) ? Number(calls) : NaN
    if (rest.length > 0 || !isBeeId(id) || !(perMinute >= 1 && perMinute <= MAX_CALLS_PER_MINUTE)) {
      problems.push(`"${entry}" is not id=calls with a Bee id and calls per minute from 1 to ${MAX_CALLS_PER_MINUTE}`)
    } else if (limits.has(id)) {
      problems.push(`${id} is listed twice`)
    } else {
      limits.set(id, perMinute)
    }
  }
  return { limits, problems }
}
