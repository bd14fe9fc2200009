import { ApiError } from '../../core/errors.js'
import { hashSecret } from '../../core/ledger/secrets.js'
import type { RunService } from '../../core/runs/service.js'
import { invalidParams, type RpcError } from './errors.js'
import type { SendContext } from './message.js'
import type { Task } from './schemas.js'
import { isObject, runTaskOf } from './tasks.js'

/** ListTasks' page size when none is asked for, and the most it may ask for (A2A §3.1.4). */
const DEFAULT_PAGE = 50
const MAX_PAGE = 100

export interface ListTasksResult {
  tasks: Task[]
  nextPageToken: string
  pageSize: number
  totalSize: number
}

/**
 * ListTasks (1.0 only): the tasks the wallet token in the header started, newest first, a page at a time (pageToken is
 * GET /api/runs's cursor). A task is a run, so the list is the caller's runs (a free Bee's run started without a token
 * is no one's to list). `status` and `contextId` filter within each page; artifacts only with includeArtifacts.
 */
export async function listTasks (runs: Pick<RunService, 'list'>, params: unknown, context: SendContext): Promise<ListTasksResult | { error: RpcError }> {
  const request = isObject(params) ? params : {}
  const { pageSize = DEFAULT_PAGE, pageToken, status, contextId, includeArtifacts } = request
  if (typeof pageSize !== 'number' || !Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) {
    return { error: invalidParams(`pageSize must be an integer from 1 to ${MAX_PAGE}.`, [{ field: '/pageSize', reason: `must be 1 to ${MAX_PAGE}` }]) }
  }
  if (context.walletToken === undefined) return { tasks: [], nextPageToken: '', pageSize, totalSize: 0 }
  let page
  try {
    page = await runs.list(hashSecret(context.walletToken), { limit: pageSize, cursor: typeof pageToken === 'string' && pageToken !== '' ? pageToken : undefined })
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 400) return { error: invalidParams(error.message, [{ field: '/pageToken', reason: 'is not a token this list gave' }]) }
    throw error
  }
  const tasks = page.items.map((run) => runTaskOf(run, run.id))
    .filter((task) => (status === undefined || status === task.status.state) && (contextId === undefined || contextId === '' || contextId === task.contextId))
    // Without includeArtifacts the field is left out, not empty (A2A §3.1.4).
    .map((task) => includeArtifacts === true ? task : (({ artifacts: _artifacts, ...rest }) => rest as Task)(task))
  return { tasks, nextPageToken: page.nextCursor ?? '', pageSize, totalSize: tasks.length }
}
