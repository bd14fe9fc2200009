import { ApiError } from '../../core/errors.js'
import type { StoredRun } from '../../core/ledger/runs/run-repository.js'
import { UNFINISHED, type RunStatus } from '../../core/runs/schemas.js'
import { runErrorOf, type RunService } from '../../core/runs/service.js'
import { taskCallerOf, type RunCaller } from '../../core/runs/task-ids.js'
import { META } from '../mcp/meta.js'
import { invalidParams, protocolError, RpcCode, type RpcError } from './errors.js'
import { errorMessage, honeyArtifact, type SendContext } from './message.js'
import { TaskState } from './protocol.js'
import type { Task } from './schemas.js'

/*
 * An async Bee's call over A2A is a task that outlives the request: its run (RunService). GetTask and CancelTask read
 * and cancel it; only the wallet credential that started it finds it (a free Bee's run started without one: its task id,
 * which then carries the run key, as MCP's does).
 */

const STATES: Record<RunStatus, TaskState> = {
  queued: TaskState.submitted,
  running: TaskState.working,
  succeeded: TaskState.completed,
  failed: TaskState.failed,
  expired: TaskState.failed,
  cancelled: TaskState.canceled
}

/**
 * The run as the task `taskId`: SUBMITTED while queued, WORKING while it runs, then COMPLETED with the Honey as its
 * artifact, FAILED with the error as its status message, or CANCELED. A run does not keep the message's contextId:
 * the answer that started it has the message's, a later read the task's own id.
 */
export function runTaskOf (run: StoredRun, taskId: string, contextId = taskId): Task {
  const failed = runErrorOf(run)
  return {
    id: taskId,
    contextId,
    status: {
      state: STATES[run.status],
      ...(failed === null ? {} : { message: errorMessage(failed, taskId, contextId) }),
      timestamp: run.updatedAt
    },
    artifacts: run.status === 'succeeded' && run.honey !== null ? [honeyArtifact(JSON.parse(run.honey))] : []
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

export const taskNotFound = (taskId: string, message: string): RpcError =>
  protocolError(RpcCode.taskNotFound, 'TASK_NOT_FOUND', message, { taskId: taskId.slice(0, 200) })

/** The A2A error a run's refusal stands for: a run (or config) not found is a task not found; a refused URL, invalid params. */
export function taskErrorOf (error: unknown, taskId: string): RpcError {
  if (error instanceof ApiError && error.code === 'RUN_NOT_FOUND') return taskNotFound(taskId, error.message)
  if (error instanceof ApiError && error.code === 'CALLBACK_URL_INVALID') {
    return invalidParams(error.message, [{ field: '/url', reason: 'is refused by the egress guard' }])
  }
  throw error
}

/** Who asks about the task `taskId`: the wallet token in the header, else in params.metadata (as SendMessage reads it). */
export function taskCaller (taskId: string, params: Record<string, unknown>, context: SendContext) {
  const metadataToken = isObject(params.metadata) ? params.metadata[META.walletToken] : undefined
  return taskCallerOf(taskId, context.walletToken ?? (typeof metadataToken === 'string' ? metadataToken : undefined))
}

/** The task `params[field]` names, as a string, or the invalid params error. */
export function taskIdParam (params: unknown, field: 'id' | 'taskId'): { taskId: string, params: Record<string, unknown> } | { error: RpcError } {
  if (!isObject(params) || typeof params[field] !== 'string' || params[field].length === 0) {
    return { error: invalidParams(`params must name the task: {"${field}": "<task id>"}.`, [{ field: `/${field}`, reason: 'must be the task id' }]) }
  }
  return { taskId: params[field], params }
}

export type FoundTask = { run: StoredRun, taskId: string, caller: RunCaller }

/** The caller's run that `params.id` names (GetTask, CancelTask, SubscribeToTask); anyone else's is not found. */
export async function findTask (runs: Pick<RunService, 'get'>, params: unknown, context: SendContext): Promise<FoundTask | { error: RpcError }> {
  const named = taskIdParam(params, 'id')
  if ('error' in named) return named
  const { id, caller } = taskCaller(named.taskId, named.params, context)
  try {
    return { run: await runs.get(caller, id), taskId: named.taskId, caller }
  } catch (error) {
    return { error: taskErrorOf(error, named.taskId) }
  }
}

/** The task's state name (TASK_STATE_*), for a refusal that names it. */
export const stateOf = (run: StoredRun): TaskState => STATES[run.status]

/**
 * GetTask (`tasks/get` on 0.3) and CancelTask (`tasks/cancel`): `{id}` in params, the wallet token in the header or in
 * params.metadata. Another caller's task, or one that never was, is not found; an ended one cannot be cancelled.
 */
export async function answerTask (runs: Pick<RunService, 'get' | 'cancel'>, method: 'GetTask' | 'CancelTask', params: unknown,
  context: SendContext): Promise<{ task: Task } | { error: RpcError }> {
  const found = await findTask(runs, params, context)
  if ('error' in found) return found
  const { run, taskId, caller } = found
  if (method === 'GetTask') return { task: runTaskOf(run, taskId) }
  if (!UNFINISHED.includes(run.status)) {
    return { error: protocolError(RpcCode.taskNotCancelable, 'TASK_NOT_CANCELABLE', `The task has ended (${STATES[run.status]}): it cannot be cancelled.`) }
  }
  try {
    return { task: runTaskOf(await runs.cancel(caller, run.id), taskId) }
  } catch (error) {
    return { error: taskErrorOf(error, taskId) }
  }
}
