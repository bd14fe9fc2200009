import { Type, type Static } from 'typebox'
import { BeeId, shared, StringEnum } from '../schemas.js'

/** `run_`, 12 hex digits of the creation time in ms (so ids sort by it), then 20 random hex digits. */
export const RUN_ID_PATTERN = '^run_[0-9a-f]{32}$'

export const RunId = Type.String({ pattern: RUN_ID_PATTERN, description: 'Run id.' })

export const RunStatus = StringEnum(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'], {
  description: 'Charged only when succeeded.'
})
export type RunStatus = Static<typeof RunStatus>

/** What a run's event row holds: a stream Bee's event, or how far the run is. */
export type RunEventKind = 'data' | 'progress'

/** The statuses a run ends in. */
export const FINISHED: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled', 'expired']
export const UNFINISHED: readonly RunStatus[] = ['queued', 'running']

export const RunError = Type.Object({
  code: Type.String({ description: 'Error code (docs/errors.md).' }),
  message: Type.String({ description: 'What went wrong.' })
}, { description: 'Why the run failed or expired.' })
export type RunError = Static<typeof RunError>

const Timestamp = (description: string) => Type.String({ format: 'date-time', description })
const NullableTimestamp = (description: string) => Type.Unsafe<string | null>({ type: 'string', format: 'date-time', nullable: true, description })

const RUN_EXAMPLE = {
  id: 'run_0192f3a4b5c6d7e8f9a0b1c2d3e4f5a6',
  beeId: 'slow-shouter',
  status: 'queued',
  createdAt: '2026-11-29T18:00:00Z',
  startedAt: null,
  finishedAt: null,
  expiresAt: '2026-11-29T18:20:00Z',
  maxRunSeconds: 900,
  progress: null,
  honey: null,
  error: null
}

export const Run = shared('Run', Type.Object({
  id: RunId,
  beeId: BeeId,
  status: RunStatus,
  createdAt: Timestamp('Accepted at.'),
  startedAt: NullableTimestamp('Started at.'),
  finishedAt: NullableTimestamp('Ended at.'),
  expiresAt: Timestamp('Expires (unfinished, not charged) at.'),
  maxRunSeconds: Type.Integer({ minimum: 1, description: 'Time limit once started (then BEE_TIMEOUT).' }),
  progress: Type.Unsafe<number | null>({ type: 'number', nullable: true, minimum: 0, maximum: 1, description: '0 to 1; null: unknown.' }),
  honey: Type.Unsafe<Record<string, unknown> | null>({ type: 'object', nullable: true, additionalProperties: true, description: 'Once succeeded: the Honey a sync call answers.' }),
  error: Type.Unsafe<RunError | null>({ ...RunError, nullable: true }),
  runKey: Type.Optional(Type.String({ description: 'A free Bee\'s run started without a wallet token: the key that reads it (?key=), shown once.' })),
  callbackSecret: Type.Optional(Type.String({ description: 'With Callback-Url: the whsec_ secret its webhook is signed with (Standard Webhooks), shown once.' }))
}, { description: 'A run of an async Bee (docs/runs.md).', examples: [RUN_EXAMPLE] }))
export type Run = Static<typeof Run>

/** The body of a run's completion webhook (Standard Webhooks' recommended shape: type, timestamp, data). */
export const RunCallbackBody = Type.Object({
  type: StringEnum(['run.succeeded', 'run.failed', 'run.cancelled', 'run.expired'], { description: 'How the run ended.' }),
  timestamp: Timestamp('When this delivery was made.'),
  data: Run
}, { description: 'POSTed to a run\'s Callback-Url once it ended (docs/runs.md).' })
export type RunCallbackBody = Static<typeof RunCallbackBody>
