import { Type, type Static } from 'typebox'
import { BeeId, shared, StringEnum } from '../schemas.js'

/** `run_`, 12 hex digits of the creation time in ms (so ids sort by it), then 20 random hex digits. */
export const RUN_ID_PATTERN = '^run_[0-9a-f]{32}$'

export const RunId = Type.String({ pattern: RUN_ID_PATTERN, description: 'Identifier of the run: run_ and 32 hex digits; ids sort by creation time.' })

export const RunStatus = StringEnum(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'], {
  description: 'queued (waiting for a worker), running, succeeded (honey holds the answer; charged once), failed (see error; ' +
    'not charged), cancelled (not charged) or expired (not finished by expiresAt; not charged).'
})
export type RunStatus = Static<typeof RunStatus>

/** The statuses a run ends in. */
export const FINISHED: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled', 'expired']
export const UNFINISHED: readonly RunStatus[] = ['queued', 'running']

export const RunError = Type.Object({
  code: Type.String({ description: 'Stable UPPER_SNAKE code of why the run failed (see docs/errors.md).' }),
  message: Type.String({ description: 'What went wrong, and what to do about it.' })
}, { description: 'Why the run failed or expired.' })
export type RunError = Static<typeof RunError>

const Timestamp = (description: string) => Type.String({ format: 'date-time', description })
const NullableTimestamp = (description: string) => Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, description })

export const Run = shared('Run', Type.Object({
  id: RunId,
  beeId: BeeId,
  status: RunStatus,
  createdAt: Timestamp('When the run was accepted (ISO 8601).'),
  startedAt: NullableTimestamp('When a worker first started it; null while queued.'),
  finishedAt: NullableTimestamp('When it ended; null until then.'),
  expiresAt: Timestamp('When a run not finished by then expires (its hold voided): RUN_QUEUE_SECONDS after createdAt, plus maxRunSeconds.'),
  maxRunSeconds: Type.Integer({ minimum: 1, description: 'The longest the Bee may take once started: past it the run fails with BEE_TIMEOUT.' }),
  progress: Type.Unsafe<number | null>({ type: 'number', nullable: true, minimum: 0, maximum: 1, description: 'How far the run has come, 0 to 1; null when the Bee does not say.' }),
  honey: Type.Unsafe<Record<string, unknown> | null>({
    type: 'object', nullable: true, additionalProperties: true, description: 'The Honey envelope once the run succeeded (as a sync call answers it); null until then, and for a run that did not succeed.'
  }),
  error: Type.Unsafe<RunError | null>({ ...RunError, nullable: true, description: 'Why the run failed or expired; null otherwise.' })
}, { description: 'A run of an async Bee: a call that outlives its request. Poll it at its Location until its status is final.' }))
export type Run = Static<typeof Run>
