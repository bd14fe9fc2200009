import { randomBytes } from 'node:crypto'
import type { Preparation, PreparationInputs, PreparationStatus, Progress } from './schemas.js'

/**
 * The states a record may be in for each action (see the table in docs/preparations.md). A worker's own moves
 * (claim: queued → running; settle: running → completed | failed, or back to queued to retry after a
 * back-off) are the repository's claim and settle.
 */
export const ALLOWED_FROM = {
  /** New inputs re-queue the job from any state; a run in progress is abandoned. */
  edit: ['queued', 'running', 'completed', 'failed', 'canceled'],
  cancel: ['queued', 'running'],
  /** Runs it again: after a failure, a cancel, or to refresh a completed record. */
  retry: ['completed', 'failed', 'canceled'],
  /** A person edits the output files and completes the record; not while a run could overwrite them. */
  review: ['completed', 'failed', 'canceled']
} as const satisfies Record<string, readonly PreparationStatus[]>

export type PreparationAction = keyof typeof ALLOWED_FROM

export const WAITING: Progress = { pagesFetched: 0, pagesPlanned: 0, stage: 'waiting' }

export const newPreparationId = () => `bee_${randomBytes(16).toString('base64url')}`

/** A record as submitted at `at`: queued, its owner's, nothing produced yet. */
export const submittedRecord = (inputs: PreparationInputs, owner: { id: string, email: string }, at: string): Preparation => ({
  id: newPreparationId(),
  ...inputs,
  status: 'queued',
  ownerId: owner.id,
  ownerEmail: owner.email,
  createdAt: at,
  updatedAt: at,
  outputFiles: null,
  progress: WAITING,
  error: null,
  attempts: 0
})

/** Seconds before the next attempt after `attempts` failed ones: doubling from `baseSeconds`, at most an hour. */
export function backoffSeconds (attempts: number, baseSeconds: number): number {
  return Math.min(3600, baseSeconds * 2 ** Math.max(0, attempts - 1))
}
