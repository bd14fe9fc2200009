import type { ProgressNotificationParams, ProgressToken } from '@modelcontextprotocol/server'
import type { BeeEvents } from '../../core/bee.js'
import { META } from './meta.js'

/** Where a tools/call's notifications/progress go, and whether its client is still there. */
export interface ProgressChannel {
  /** Sends one notification; the call goes on without it when it cannot be sent. */
  notify (params: ProgressNotificationParams): void | Promise<void>
  /** Aborts when the client went away: a stream Bee's upstream is stopped and its hold voided. */
  signal: AbortSignal
}

/**
 * A stream Bee's events as the notifications/progress of `token`, one per event. `progress` counts the events relayed
 * (the spec asks it to grow with each notification; a Bee's own fraction need not); a data event carries the event in
 * `_meta`; a progress event's fraction f gives `total` = progress / f, so that progress / total is the Bee's fraction.
 */
export function progressEvents (token: ProgressToken, channel: ProgressChannel): BeeEvents {
  let count = 0
  return {
    data: (event) => {
      count++
      return channel.notify({ progressToken: token, progress: count, message: `event ${count}`, _meta: { [META.event]: event } })
    },
    progress: (fraction) => {
      count++
      return channel.notify({
        progressToken: token,
        progress: count,
        ...(fraction > 0 ? { total: count / fraction } : {}),
        message: `${Math.round(fraction * 100)}% done`
      })
    }
  }
}
