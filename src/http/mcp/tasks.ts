import {
  ProtocolError, ProtocolErrorCode, RELATED_TASK_META_KEY, specTypeSchemas,
  type CallToolRequestParams, type CallToolResult, type CreateTaskResult, type ListTasksResult, type StandardSchemaV1, type StandardSchemaV1Sync, type Task
} from '@modelcontextprotocol/server'
import { ApiError, bodyOf } from '../../core/errors.js'
import type { Honey } from '../../core/execution/execution.js'
import type { StoredRun } from '../../core/ledger/runs/run-repository.js'
import { hashSecret } from '../../core/ledger/secrets.js'
import { UNFINISHED, type RunStatus } from '../../core/runs/schemas.js'
import { runErrorOf } from '../../core/runs/service.js'
import { taskCallerOf, taskIdOf } from '../../core/runs/task-ids.js'
import { callTool, executionRequest, metaString, toCallResult, type CallContext } from './call.js'
import { fromApiError, type Era } from './errors.js'
import { FIND_BEES } from './find-bees.js'
import { META } from './meta.js'
import type { McpOptions } from './options.js'

/*
 * MCP tasks (2025-11-25): a task-augmented tools/call of an async Bee starts a run and answers its task at once;
 * tasks/get, tasks/result, tasks/cancel and tasks/list read the run service. A task is the caller's run: found only with
 * the wallet credential that started it (the header, the OAuth access token or `_meta`), or, for a free Bee's run started
 * without one, by its task id, which then carries the run key. The SDK's 2.x server keeps the task methods' wire schemas
 * (it checks their requests) but has no task runtime, so the answers are made here.
 */

const STATUS: Record<RunStatus, Task['status']> = {
  queued: 'working',
  running: 'working',
  succeeded: 'completed',
  failed: 'failed',
  expired: 'failed',
  cancelled: 'cancelled'
}

/** The poll interval a task suggests, as Retry-After does over HTTP. */
const POLL_MS = 1000

type TaskRequestParams = { taskId: string, _meta?: Record<string, unknown> | undefined }
type ListRequestParams = { cursor?: string | undefined, _meta?: Record<string, unknown> | undefined } | undefined

/**
 * A task method's params, checked by the SDK's own 2025-11-25 schema of its request: the SDK's typed handler surface
 * leaves the task methods out, so they are registered with their params schema, and this is it.
 */
function paramsChecked<P> (method: string, request: StandardSchemaV1Sync): StandardSchemaV1<unknown, P> {
  return {
    '~standard': {
      version: 1,
      vendor: 'apiary',
      validate: (params) => {
        const checked = request['~standard'].validate({ method, params })
        return checked.issues === undefined ? { value: (checked.value as { params: P }).params } : { issues: checked.issues }
      }
    }
  }
}

/** The params schemas of the task methods, by method. */
export const TASK_PARAMS = {
  'tasks/get': paramsChecked<TaskRequestParams>('tasks/get', specTypeSchemas.GetTaskRequest),
  'tasks/result': paramsChecked<TaskRequestParams>('tasks/result', specTypeSchemas.GetTaskPayloadRequest),
  'tasks/cancel': paramsChecked<TaskRequestParams>('tasks/cancel', specTypeSchemas.CancelTaskRequest),
  'tasks/list': paramsChecked<ListRequestParams>('tasks/list', specTypeSchemas.ListTasksRequest)
}

/**
 * The run as the task `taskId`: working until it ends, then completed, failed or cancelled. Its ttl is how long it is
 * kept at most from its creation: its whole life, then RUN_RETENTION_HOURS once ended.
 */
export function taskOf (run: StoredRun, taskId: string, retentionHours: number): Task {
  return {
    taskId,
    status: STATUS[run.status],
    ...(run.error === null ? {} : { statusMessage: `${run.error.code}: ${run.error.message}` }),
    createdAt: run.createdAt,
    lastUpdatedAt: run.updatedAt,
    ttl: Date.parse(run.expiresAt) - Date.parse(run.createdAt) + retentionHours * 3_600_000,
    pollInterval: POLL_MS
  }
}

/** A refusal of the run service as a task method's error: no such task (-32602, as the spec asks), or the ledger away (rethrown, for the server's guard). */
async function refusingUnknown<R> (work: Promise<R>): Promise<R> {
  return await work.catch((error: unknown) => {
    if (error instanceof ApiError && error.statusCode < 500) throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message, bodyOf(error))
    throw error
  })
}

/**
 * A task-augmented tools/call: an async Bee's call becomes a run, answered with its task (CreateTaskResult) once it is
 * queued and its hold placed; any other tool (find_bees, a sync Bee) is answered as callTool answers it, as the spec lets
 * a receiver do with a request it does not run as a task.
 */
export async function callToolAsTask (options: McpOptions, context: CallContext, params: CallToolRequestParams, era: Era):
Promise<CallToolResult | CreateTaskResult> {
  if (params.name === FIND_BEES) return await callTool(options, context, params, era)
  const outcome = await options.executeOrStart(executionRequest(params, context))
  if (!('run' in outcome)) return toCallResult(params.name, outcome, era)
  const { run, runKey } = outcome.run
  return { task: taskOf(run, taskIdOf(run, runKey), options.runRetentionHours) }
}

/** The task methods, each a promise of its result, for the server to register. */
export function taskMethods (options: McpOptions, context: CallContext, era: Era) {
  const { runs, runRetentionHours } = options
  const walletTokenOf = (meta: Record<string, unknown> | undefined) => context.walletToken ?? metaString(meta, META.walletToken)
  const read = async ({ taskId, _meta }: TaskRequestParams) => {
    const { id, caller } = taskCallerOf(taskId, walletTokenOf(_meta))
    return { id, caller, run: await refusingUnknown(runs.get(caller, id)) }
  }
  return {
    get: async (params: TaskRequestParams): Promise<Task> => taskOf((await read(params)).run, params.taskId, runRetentionHours),

    /** The tools/call result of the run, once it ended: its Honey, or its failure as the call would have answered it. */
    result: async (params: TaskRequestParams): Promise<CallToolResult> => {
      const run = await runs.ended((await read(params)).run)
      const related = { [RELATED_TASK_META_KEY]: { taskId: params.taskId } }
      const runError = runErrorOf(run)
      let result: CallToolResult
      if (run.status === 'succeeded' && run.honey !== null) {
        const honey = JSON.parse(run.honey) as Honey
        result = toCallResult(run.beeId, { ok: true, honey, body: run.honey, replayed: false, charge: null, payment: null }, era)
      } else if (runError !== null) {
        result = fromApiError(run.beeId, runError, era)
      } else {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The task is ${STATUS[run.status]}: it has no result.`)
      }
      return { ...result, _meta: { ...result._meta, ...related } }
    },

    /** Cancels a working task (its hold voided); one that ended already cannot be, as the spec says (-32602). */
    cancel: async (params: TaskRequestParams): Promise<Task> => {
      const { id, caller, run } = await read(params)
      if (!UNFINISHED.includes(run.status)) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The task cannot be cancelled: it is ${STATUS[run.status]} already.`)
      }
      return taskOf(await refusingUnknown(runs.cancel(caller, id)), params.taskId, runRetentionHours)
    },

    /** The tasks the wallet credential started, newest first; none without a credential (a free run's task is found by its id alone). */
    list: async (params: ListRequestParams): Promise<ListTasksResult> => {
      const token = walletTokenOf(params?._meta)
      if (token === undefined || token.length === 0) return { tasks: [] }
      const listed = await refusingUnknown(runs.list(hashSecret(token), { limit: 50, cursor: params?.cursor }))
      return {
        tasks: listed.items.map((run) => taskOf(run, run.id, runRetentionHours)),
        ...(listed.nextCursor === null ? {} : { nextCursor: listed.nextCursor })
      }
    }
  }
}
