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
