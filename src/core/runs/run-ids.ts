import { randomBytes } from 'node:crypto'

let lastMs = 0

/** A run id: the creation time first, so ids sort (and a caller's list pages) by it; random after, so none can be guessed. */
export function newRunId (): string {
  // Two ids in one millisecond keep their order in a list only by luck; the next millisecond is borrowed instead.
  lastMs = Math.max(Date.now(), lastMs + 1)
  return `run_${lastMs.toString(16).padStart(12, '0')}${randomBytes(10).toString('hex')}`
}

/** A run key: the capability to read a run that has no owner (a free Bee called without a wallet token). Shown once. */
export const newRunKey = (): string => `rk_${randomBytes(24).toString('base64url')}`

/** A callback's id; its deliveries' webhook-id is made from it. */
export const newCallbackId = (): string => `cb_${randomBytes(16).toString('hex')}`

/** A Standard Webhooks signing secret: whsec_ and 32 random bytes in base64, as the standard's libraries read it. */
export const newCallbackSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`
