import { randomUUID } from 'node:crypto'
import type { StoredCallback } from '../../core/ledger/run-callbacks/run-callback-repository.js'
import type { StoredRun } from '../../core/ledger/runs/run-repository.js'
import type { PushConfigs } from '../../core/runs/push-configs.js'
import type { CallbackTarget } from '../../core/runs/service.js'
import { invalidParams, type RpcError } from './errors.js'
import type { SendContext } from './message.js'
import type { PushConfig } from './schemas.js'
import { toLegacyTask } from './legacy.js'
import { isObject, runTaskOf, taskCaller, taskErrorOf, taskIdParam } from './tasks.js'

/*
 * A2A's push notification configs (1.0's shapes; legacy.ts translates 0.3's): a URL Apiary POSTs the task to once it
 * ended, with the config's token (X-A2A-Notification-Token) and authentication (Authorization), through the egress
 * guard, retried as run webhooks are (docs/runs.md). Only the caller who started the task reads or sets its configs.
 */

/** The A2A version a config was set in: its deliveries' body is that version's. */
export type PushFormat = Required<CallbackTarget>['push']['format']

/** Longest config id kept: ids are the client's. */
const MAX_ID = 200

/** A TaskPushNotificationConfig (1.0's shape) as the callback to write, or why it cannot be one. */
export function pushTargetOf (config: unknown, format: PushFormat): { target: Required<CallbackTarget> } | { error: RpcError } {
  const refuse = (field: string, reason: string) =>
    ({ error: invalidParams(`The push notification config ${field} ${reason}.`, [{ field: `/${field}`, reason }]) })
  if (!isObject(config)) return refuse('', 'must be an object {url, token?, authentication?}')
  const { url, token, id, authentication } = config
  if (typeof url !== 'string' || url === '') return refuse('url', 'must be the https URL to POST the task to')
  if (token !== undefined && typeof token !== 'string') return refuse('token', 'must be a string')
  if (id !== undefined && (typeof id !== 'string' || id.length > MAX_ID)) return refuse('id', `must be a string of at most ${MAX_ID} characters`)
  if (authentication !== undefined && !(isObject(authentication) && typeof authentication.scheme === 'string' && authentication.scheme !== '' &&
    (authentication.credentials === undefined || typeof authentication.credentials === 'string'))) {
    return refuse('authentication', 'must be {scheme, credentials}')
  }
  return {
    target: {
      url,
      token: typeof token === 'string' && token !== '' ? token : null,
      push: {
        format,
        configId: typeof id === 'string' && id !== '' ? id : randomUUID(),
        authentication: authentication === undefined ? null : { scheme: authentication.scheme as string, credentials: (authentication.credentials as string | undefined) ?? '' }
      }
    }
  }
}

/** A stored config as A2A 1.0 answers it. */
function configOf (callback: StoredCallback, taskId: string): PushConfig {
  return {
    taskId,
    id: callback.configId ?? callback.id,
    url: callback.url,
    ...(callback.token === null ? {} : { token: callback.token }),
    ...(callback.authentication === null ? {} : { authentication: callback.authentication })
  }
}

/** The body of a config's delivery: the task, in the shape of the A2A version it was set in (1.0 wraps it in a StreamResponse). */
export function pushBodyOf (run: StoredRun, callback: StoredCallback): string {
  const task = runTaskOf(run, callback.taskId ?? run.id)
  return JSON.stringify(callback.format === 'a2a-0.3' ? toLegacyTask(task) : { task })
}

export type PushMethod = 'CreateTaskPushNotificationConfig' | 'GetTaskPushNotificationConfig' | 'ListTaskPushNotificationConfigs' | 'DeleteTaskPushNotificationConfig'

export type PushAnswer = { config: PushConfig } | { configs: PushConfig[] } | { deleted: true } | { error: RpcError }

/** One of the four config methods, its params in 1.0's shape (`taskId`, and the config's `id`). */
export async function answerPushConfig (configs: PushConfigs, method: PushMethod, params: unknown, context: SendContext,
  format: PushFormat): Promise<PushAnswer> {
  const named = taskIdParam(params, 'taskId')
  if ('error' in named) return named
  const { taskId } = named
  const { id: runId, caller } = taskCaller(taskId, named.params, context)
  const configId = typeof named.params.id === 'string' && named.params.id !== '' ? named.params.id : undefined
  try {
    switch (method) {
      case 'CreateTaskPushNotificationConfig': {
        const read = pushTargetOf(named.params, format)
        if ('error' in read) return read
        return { config: configOf(await configs.set(caller, runId, taskId, read.target), taskId) }
      }
      case 'GetTaskPushNotificationConfig':
        return { config: configOf(await configs.get(caller, runId, configId), taskId) }
      case 'ListTaskPushNotificationConfigs':
        return { configs: (await configs.list(caller, runId)).map((callback) => configOf(callback, taskId)) }
      case 'DeleteTaskPushNotificationConfig':
        if (configId === undefined) return { error: invalidParams('params must name the config: {"taskId", "id"}.', [{ field: '/id', reason: 'must be the config id' }]) }
        await configs.delete(caller, runId, configId)
        return { deleted: true }
    }
  } catch (error) {
    return { error: taskErrorOf(error, taskId) }
  }
}
