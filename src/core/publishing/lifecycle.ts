import { failure } from '../errors.js'
import type { BeeStatus } from '../schemas.js'

export interface StatusChange {
  status?: BeeStatus | undefined
  statusMessage?: string | null | undefined
  sunsetAt?: string | null | undefined
}

export interface StatusState {
  status: BeeStatus
  statusMessage: string | null
  sunsetAt: string | null
}

/**
 * The Sunset header is written from sunsetAt as an HTTP date, so it must be an instant JavaScript
 * can represent. The date-time format alone lets through leap seconds ("…T23:59:60Z"), which no
 * Date parses: they would be announced as "Sunset: Invalid Date".
 */
function checkSunset (sunsetAt: string | null | undefined): void {
  if (typeof sunsetAt !== 'string' || !Number.isNaN(Date.parse(sunsetAt))) return
  const reason = 'must be a date-time that exists, e.g. 2027-06-30T00:00:00Z (leap seconds are not accepted)'
  throw failure('VALIDATION_FAILED', `The body is invalid: /sunsetAt ${reason}.`, { details: [{ field: '/sunsetAt', reason }] })
}

/**
 * The lifecycle: active ⇄ inactive; active or inactive → deprecated (with a statusMessage and an
 * optional sunset date); a deprecated Bee comes back only by the operator's hand.
 */
export function nextStatus (current: StatusState, change: StatusChange, byAdmin: boolean): StatusState {
  checkSunset(change.sunsetAt)
  const status = change.status ?? current.status
  if (current.status === 'deprecated' && status !== 'deprecated' && !byAdmin) {
    throw failure('BEE_DEPRECATED', 'A deprecated Bee can only be revived by the operator.')
  }
  const statusMessage = change.statusMessage === undefined ? (status === current.status ? current.statusMessage : null) : change.statusMessage
  const sunsetAt = change.sunsetAt === undefined ? (status === 'deprecated' ? current.sunsetAt : null) : change.sunsetAt
  if (status === 'deprecated' && (statusMessage === null || statusMessage.trim() === '')) {
    throw failure('STATUS_MESSAGE_REQUIRED', 'Deprecating a Bee needs a statusMessage telling callers what to use instead.')
  }
  if (sunsetAt !== null && status !== 'deprecated') {
    throw failure('SUNSET_WITHOUT_DEPRECATION', 'sunsetAt can only be set on a deprecated Bee.')
  }
  return { status, statusMessage, sunsetAt }
}
