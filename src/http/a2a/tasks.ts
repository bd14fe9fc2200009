import { ApiError } from '../../core/errors.js'
import type { StoredRun } from '../../core/ledger/runs/run-repository.js'
import { UNFINISHED, type RunStatus } from '../../core/runs/schemas.js'
import { runErrorOf, type RunService } from '../../core/runs/service.js'
import { taskCallerOf } from '../../core/runs/task-ids.js'
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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const notFound = (taskId: string, message: string): RpcError =>
  protocolError(RpcCode.taskNotFound, 'TASK_NOT_FOUND', message, { taskId: taskId.slice(0, 200) })

/**
 * GetTask (`tasks/get` on 0.3) and CancelTask (`tasks/cancel`): `{id}` in params, the wallet token in the header or in
 * params.metadata. Another caller's task, or one that never was, is not found; an ended one cannot be cancelled.
 */
export async function answerTask (runs: Pick<RunService, 'get' | 'cancel'>, method: 'GetTask' | 'CancelTask', params: unknown,
  context: SendContext): Promise<{ task: Task } | { error: RpcError }> {
  if (!isObject(params) || typeof params.id !== 'string' || params.id.length === 0) {
    return { error: invalidParams('params must name the task: {"id": "<task id>"}.', [{ field: '/id', reason: 'must be the task id' }]) }
  }
  const taskId = params.id
  const metadataToken = isObject(params.metadata) ? params.metadata[META.walletToken] : undefined
  const { id, caller } = taskCallerOf(taskId, context.walletToken ?? (typeof metadataToken === 'string' ? metadataToken : undefined))
  try {
    const run = await runs.get(caller, id)
    if (method === 'GetTask') return { task: runTaskOf(run, taskId) }
    if (!UNFINISHED.includes(run.status)) {
      return { error: protocolError(RpcCode.taskNotCancelable, 'TASK_NOT_CANCELABLE', `The task has ended (${STATES[run.status]}): it cannot be cancelled.`) }
    }
    return { task: runTaskOf(await runs.cancel(caller, id), taskId) }
  } catch (error) {
    if (error instanceof ApiError && error.code === 'RUN_NOT_FOUND') return { error: notFound(taskId, error.message) }
    throw error
  }
}
