/** Where a run's completion webhook is in its delivery. */
export type CallbackState = 'pending' | 'delivered' | 'failed'

/** What a delivery's body is: the run webhook's `{type, timestamp, data}`, or A2A's task in 1.0's (`{task}`) or 0.3's shape. */
export type CallbackFormat = 'webhook' | 'a2a' | 'a2a-0.3'

/** An Authorization header's scheme and credentials (A2A's AuthenticationInfo). */
export interface CallbackAuthentication {
  scheme: string
  credentials: string
}

/** A run's completion webhook, its secrets opened. */
export interface StoredCallback {
  id: string
  runId: string
  url: string
  /** The Standard Webhooks secret (whsec_…) its deliveries are signed with. */
  secret: string
  /** Sent back with each delivery; null without one. */
  token: string | null
  format: CallbackFormat
  /** A2A's push notification config id, unique within the run; null for a run webhook. */
  configId: string | null
  /** The A2A task id its caller knows (a free Bee's carries its run key); null for a run webhook. */
  taskId: string | null
  /** Sent as Authorization with each delivery; null without one. */
  authentication: CallbackAuthentication | null
  state: CallbackState
  /** Attempts made (claimed), the one in progress included. */
  attempts: number
  nextAttemptAt: string | null
  lastStatus: number | null
  lastError: string | null
  createdAt: string
  deliveredAt: string | null
}

export type NewCallback = Pick<StoredCallback, 'id' | 'runId' | 'url' | 'secret' | 'token' | 'createdAt'> &
  Partial<Pick<StoredCallback, 'format' | 'configId' | 'taskId' | 'authentication'>>

export interface CallbackClaim {
  /** Only a callback of this run; undefined: the oldest due one. */
  runId?: string
  now: string
  leaseUntil: string
  /** A first attempt only if its run ended before this time (a job engine's poller: younger ones wait for their job). */
  endedBefore?: string
}

/** What an attempt came to: delivered, failed for good, or pending again until `nextAttemptAt`. */
export interface CallbackOutcome {
  state: CallbackState
  nextAttemptAt: string | null
  lastStatus: number | null
  lastError: string | null
  at: string
}

/**
 * Completion webhooks of runs. The row is also its delivery's job: due once its run ended (then at each retry's
 * time), claimed under a lease (a delivery whose worker died is claimed again once it passes), and given its outcome.
 */
export interface RunCallbackRepository {
  insert (callback: NewCallback): Promise<void>
  /** Deletes a callback whose run was not made (its idempotency key named an earlier run). */
  delete (id: string): Promise<void>
  /** Writes an A2A push config, in place of the run's config of the same id (its delivery state starting again). */
  replaceConfig (callback: NewCallback & { configId: string }): Promise<void>
  /** The run's A2A push configs, oldest first. */
  configsOf (runId: string): Promise<StoredCallback[]>
  /** Deletes the run's A2A push config of that id, if it has one. */
  deleteConfig (runId: string, configId: string): Promise<void>
  /** Marks a due callback (its run ended, its retry time passed, no live lease) as being attempted; null when none. */
  claim (claim: CallbackClaim): Promise<StoredCallback | null>
  /** Writes what an attempt came to, and frees the callback from its lease. */
  settle (id: string, outcome: CallbackOutcome): Promise<void>
  /** Whether the run has a callback to deliver now: its run ended and it is pending. */
  hasDue (runId: string): Promise<boolean>
  /** Deletes up to `limit` callbacks created before `before` whose run is gone (purged, or never made); returns how many. */
  purgeOrphans (before: string, limit: number): Promise<number>
}
