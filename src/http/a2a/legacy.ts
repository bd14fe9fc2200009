import type { Artifact, Message, Part, PushConfig, StreamResponse, Task } from './schemas.js'
import { TaskState } from './protocol.js'
import { isObject } from './tasks.js'

/**
 * A2A 0.3 on the wire, translated to and from the 1.0 shapes the endpoint works in, so both versions
 * run through one reading of the message and one pipeline. 0.3 names its methods with slashes, tags
 * each object with `kind`, and spells roles and states in lower case.
 */

/** The 0.3 method names, by the 1.0 method each one is. */
export const LEGACY_METHODS = new Map(Object.entries({
  'message/send': 'SendMessage',
  'message/stream': 'SendStreamingMessage',
  'tasks/get': 'GetTask',
  'tasks/cancel': 'CancelTask',
  'tasks/resubscribe': 'SubscribeToTask',
  'tasks/pushNotificationConfig/set': 'CreateTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/get': 'GetTaskPushNotificationConfig',
  'tasks/pushNotificationConfig/list': 'ListTaskPushNotificationConfigs',
  'tasks/pushNotificationConfig/delete': 'DeleteTaskPushNotificationConfig',
  'agent/getAuthenticatedExtendedCard': 'GetExtendedAgentCard'
}))

const ROLES: Record<string, string> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' }

const STATES: Record<TaskState, string> = {
  [TaskState.submitted]: 'submitted',
  [TaskState.working]: 'working',
  [TaskState.canceled]: 'canceled',
  [TaskState.completed]: 'completed',
  [TaskState.failed]: 'failed',
  [TaskState.rejected]: 'rejected',
  [TaskState.authRequired]: 'auth-required'
}

/** A 0.3 part without its `kind`: a text or data part then reads as 1.0's; a file part is not read either way. */
function fromLegacyPart (part: unknown): unknown {
  if (!isObject(part)) return part
  const { kind: _kind, ...rest } = part
  return rest
}

/**
 * The params of a 0.3 `message/send` in the shape of a 1.0 SendMessageRequest. Anything that is not
 * a 0.3 message is left as it is, for the 1.0 reading to refuse with the field it lacks.
 */
export function fromLegacyParams (params: unknown): unknown {
  if (!isObject(params) || !isObject(params.message)) return params
  const { kind: _kind, role, parts, ...message } = params.message
  const configuration = isObject(params.configuration) ? params.configuration : undefined
  return {
    ...params,
    ...(configuration?.pushNotificationConfig === undefined
      ? {}
      : { configuration: { ...configuration, taskPushNotificationConfig: fromLegacyPushConfig(configuration.pushNotificationConfig) } }),
    message: {
      ...message,
      role: typeof role === 'string' ? (ROLES[role] ?? role) : role,
      parts: Array.isArray(parts) ? parts.map(fromLegacyPart) : parts
    }
  }
}

/** A part of an answer (text or data, the only ones Apiary writes) as 0.3 tags it. */
function toLegacyPart (part: Part) {
  return part.data === undefined
    ? { kind: 'text', text: part.text ?? '' }
    : { kind: 'data', data: part.data }
}

function toLegacyMessage (message: Message) {
  return {
    kind: 'message',
    messageId: message.messageId,
    contextId: message.contextId,
    taskId: message.taskId,
    role: message.role === 'ROLE_USER' ? 'user' : 'agent',
    parts: message.parts.map(toLegacyPart)
  }
}

const FINAL = new Set<string>([TaskState.completed, TaskState.failed, TaskState.canceled, TaskState.rejected])

function toLegacyStatus ({ message, state, timestamp }: Task['status']) {
  return { state: STATES[state as TaskState], ...(message === undefined ? {} : { message: toLegacyMessage(message) }), timestamp }
}

const toLegacyArtifact = ({ artifactId, name, parts }: Artifact) => ({ artifactId, name, parts: parts.map(toLegacyPart) })

/** The finished task as a 0.3 `message/send` result: the Task itself, tagged, not wrapped in `{task}`. */
export function toLegacyTask (task: Task) {
  return {
    kind: 'task',
    id: task.id,
    contextId: task.contextId,
    status: toLegacyStatus(task.status),
    artifacts: task.artifacts.map(toLegacyArtifact),
    ...(task.metadata === undefined ? {} : { metadata: task.metadata })
  }
}

/** A stream's event as 0.3 sends it: the object itself, tagged; a status update says whether it is the last (`final`). */
export function toLegacyUpdate (update: StreamResponse) {
  if ('task' in update) return toLegacyTask(update.task)
  if ('statusUpdate' in update) {
    const { status, ...rest } = update.statusUpdate
    return { kind: 'status-update', ...rest, status: toLegacyStatus(status), final: FINAL.has(status.state) }
  }
  const { artifact, ...rest } = update.artifactUpdate
  return { kind: 'artifact-update', ...rest, artifact: toLegacyArtifact(artifact) }
}

/** 0.3's PushNotificationConfig (`authentication: {schemes, credentials}`) in 1.0's shape (`{scheme, credentials}`: the first scheme). */
function fromLegacyPushConfig (config: unknown): unknown {
  if (!isObject(config) || !isObject(config.authentication)) return config
  const { schemes, credentials } = config.authentication
  return { ...config, authentication: { scheme: Array.isArray(schemes) ? schemes[0] : undefined, credentials } }
}

/**
 * The params of 0.3's `tasks/pushNotificationConfig/*` in 1.0's shape: `set` takes `{taskId, pushNotificationConfig}`,
 * the others `{id: <task id>, pushNotificationConfigId}`.
 */
export function fromLegacyPushParams (method: string, params: unknown): unknown {
  if (!isObject(params)) return params
  if (method === 'CreateTaskPushNotificationConfig') {
    const { pushNotificationConfig, ...rest } = params
    return isObject(pushNotificationConfig) ? { ...rest, ...(fromLegacyPushConfig(pushNotificationConfig) as object) } : params
  }
  const { id, pushNotificationConfigId, ...rest } = params
  return { ...rest, taskId: id, id: pushNotificationConfigId }
}

/** A config as 0.3 answers it. */
export function toLegacyPushConfig ({ taskId, authentication, ...config }: PushConfig) {
  return {
    taskId,
    pushNotificationConfig: {
      ...config,
      ...(authentication === undefined ? {} : { authentication: { schemes: [authentication.scheme], credentials: authentication.credentials } })
    }
  }
}
