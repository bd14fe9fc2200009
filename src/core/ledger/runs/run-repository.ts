import type { RunError, RunEventKind, RunStatus } from '../../runs/schemas.js'
import type { PageOutcome, PageRequest } from '../paging.js'
import type { RunNotifications } from './notifications.js'

/** A run as stored: what its caller sees, and who may see it, what it holds and who works on it. */
export interface StoredRun {
  id: string
  beeId: string
  /** Hash of the wallet credential (key or verification token) that started it; null for a free Bee called without one. */
  ownerHash: string | null
  /** Hash of the run key handed out with a run that has no owner: the capability to read it. */
  keyHash: string | null
  status: RunStatus
  input: unknown
  /** Scoped to ownerHash: the same key from the same caller is the same run. */
  idempotencyKey: string | null
  /** With an idempotency key: the Bee and input it was sent with, which a retry under the key must match. */
  requestHash: string | null
  /** The hold placed at admission, captured once on success and voided otherwise; null for a free Bee. */
  holdId: number | null
  requestId: string
  progress: number | null
  /** The Honey envelope's bytes, as a sync call would have answered. */
  honey: string | null
  /** `status`: the HTTP status a call that waited for the run answers its failure with. */
  error: (RunError & { status?: number }) | null
  /** How many times a worker claimed it (more than one: a worker died, or stopped, with it). */
  attempts: number
  maxRunSeconds: number
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  expiresAt: string
  updatedAt: string
}

export type NewRun = Omit<StoredRun, 'status' | 'progress' | 'honey' | 'error' | 'attempts' | 'startedAt' | 'finishedAt' | 'updatedAt'>

export interface RunClaim {
  /** Only this run; undefined: the oldest due one. */
  id?: string
  /** Fences the run: its outcome is written only while the row still carries it. */
  runToken: string
  now: string
  leaseUntil: string
  /** Only queued runs created before this time (a job engine's poller: younger ones wait for their job). */
  queuedBefore?: string
}

/** What settling a run writes; its status is written only when it is one of `from` (and, with `runToken`, still that run's). */
export interface RunSettlement {
  from: readonly RunStatus[]
  runToken?: string
  /** Only while the run has no answer kept: a cancel cannot take back an answer on its way to be sold. */
  unanswered?: boolean
  status: RunStatus
  honey?: string | null
  error?: StoredRun['error']
  at: string
}

/** One of a run's events, as kept: its number within the run (1, 2, ...), and its JSON. */
export interface StoredRunEvent {
  seq: number
  kind: RunEventKind
  data: string
}

export interface RunListRequest extends PageRequest {
  ownerHash: string
}

/**
 * Runs of async Bees. The row is also the job: a worker claims it (queued, or running under a lease that passed: its
 * worker died), keeps the lease alive while the Bee works, and settles it; a cancel or an expiry clears the worker's
 * token, so a worker that lost its run writes nothing.
 */
export interface RunRepository {
  /** Inserts the run, unless its owner already has one under its idempotency key: then that one is returned instead. */
  insert (run: NewRun): Promise<{ inserted: true, run: StoredRun } | { inserted: false, run: StoredRun }>
  get (id: string): Promise<StoredRun | null>
  byIdempotencyKey (ownerHash: string, key: string): Promise<StoredRun | null>
  /** How many of the owner's runs are queued or running. */
  countUnfinished (ownerHash: string): Promise<number>
  /** The owner's runs, newest first. */
  list (request: RunListRequest): Promise<PageOutcome<StoredRun>>
  /**
   * Marks a due run running under this claim (queued and not expired, or running under a lease that passed: not
   * expired, or with an answer kept, which is sold whatever the time); null when none.
   */
  claim (claim: RunClaim): Promise<StoredRun | null>
  /** Extends the run's lease; false when the worker no longer owns it (cancelled, expired, taken over). */
  heartbeat (id: string, runToken: string, leaseUntil: string): Promise<boolean>
  /**
   * Keeps the Bee's answer on the running run, before its hold is captured: from then on a cancel cannot win, and a
   * worker that takes the run over sells that answer instead of calling the Bee again. False when the worker lost the run.
   */
  keepAnswer (id: string, runToken: string, honey: string): Promise<boolean>
  /** Applies the settlement and returns the run as written; null when its status (or token) no longer matched. */
  settle (id: string, settlement: RunSettlement): Promise<StoredRun | null>
  /** Marks up to `limit` unfinished runs without an answer kept past their expiry expired; returns them, for their holds to be voided. */
  expireDue (now: string, limit: number): Promise<StoredRun[]>
  /**
   * Appends an event to the running run (its number the next one), and with a progress event sets its progress; false
   * when the worker no longer owns the run. One worker writes a run's events, one after the other.
   */
  appendEvent (id: string, runToken: string, kind: RunEventKind, data: string, at: string): Promise<boolean>
  /** The run's events numbered after `after`, in order, at most `limit`. */
  eventsAfter (id: string, after: number, limit: number): Promise<StoredRunEvent[]>
  /** Deletes up to `limit` runs that ended before `before`, and their events; returns how many runs. */
  purgeEnded (before: string, limit: number): Promise<number>
  /** Tells every instance that the run has news (an event, its end): PostgreSQL's NOTIFY; nothing on SQLite. */
  notify (id: string): Promise<void>
  /** Listens for other instances' news of runs (see RunNotifications.listen). */
  watch: RunNotifications['listen']
  /** The state of a run's hold: a worker that took a run over learns whether the worker before it captured it already. */
  holdState (holdId: number): Promise<'pending' | 'captured' | 'voided' | null>
}
