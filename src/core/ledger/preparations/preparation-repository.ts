import type { OutputFiles, Preparation, PreparationError, PreparationInputs, PreparationStatus, Progress } from '../../preparations/schemas.js'
import type { PageOutcome, PageRequest } from '../paging.js'

/** What a change to a record sets; every change also ends any run in progress (its runToken stops matching). */
export interface PreparationChange {
  inputs?: PreparationInputs
  status?: PreparationStatus
  outputFiles?: OutputFiles | null
  progress?: Progress
  error?: PreparationError | null
  attempts?: number
  /** Not before this time may a worker claim the queued record (a retry's back-off). */
  runAfter?: string
  updatedAt: string
}

export type ChangeOutcome = { ok: true, preparation: Preparation } | { ok: false, reason: 'NOT_FOUND' } | { ok: false, reason: 'WRONG_STATE', status: PreparationStatus }

export interface ListRequest extends PageRequest {
  /** Only this owner's records; undefined: everyone's. */
  ownerId?: string | undefined
  status?: PreparationStatus | undefined
}

export interface Claim {
  /** Only this record (a job engine hands out ids); undefined: the next due one. */
  id?: string
  /** Fences the run: its progress and its result are written only while the record still carries it. */
  runToken: string
  now: string
  leaseUntil: string
}

/**
 * Website preparation records. The record is also the job: a worker claims it (queued, or running under an
 * expired lease, which means its worker died), keeps its lease alive while it works, and settles it. Every
 * other change clears the run's token, so a canceled, edited or deleted record's worker stops writing.
 */
export interface PreparationRepository {
  insert (preparation: Preparation): Promise<void>
  get (id: string): Promise<Preparation | null>
  /** In id order. */
  list (request: ListRequest): Promise<PageOutcome<Preparation>>
  /** Applies the change when the record's status is one of `from`. */
  change (id: string, from: readonly PreparationStatus[], change: PreparationChange): Promise<ChangeOutcome>
  delete (id: string): Promise<boolean>
  /**
   * Ids of up to `limit` records due at `now` (queued and past their back-off, or running under an expired
   * lease) and unchanged since `changedBefore`, oldest first: what a job engine may have lost.
   */
  dueIds (now: string, changedBefore: string, limit: number): Promise<string[]>
  /** How many records are in each status (statuses with none are absent). */
  countByStatus (): Promise<Record<string, number>>
  /** Marks a due record running under this claim's token (attempts + 1); null when none is due. */
  claim (claim: Claim): Promise<Preparation | null>
  /** Writes the run's progress and extends its lease; false when the run no longer owns the record. */
  heartbeat (id: string, runToken: string, progress: Progress, leaseUntil: string): Promise<boolean>
  /** Writes the run's outcome; false when the run no longer owns the record. */
  settle (id: string, runToken: string, change: PreparationChange): Promise<boolean>
}
